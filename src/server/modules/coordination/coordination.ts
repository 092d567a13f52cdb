import type {
  CheckStatusInput,
  CheckStatusResponse,
  CoordinationEvent,
  LockView,
  Orchestration,
  PostStatusInput,
  PostStatusResponse,
} from '@/contracts/coordination.js';
import type { Db } from '@/server/db/client.js';
import { projectStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { resolveProjectByRepoUrl } from '../projects/projects.js';
import { shownLock } from './lock-overlay.js';
import type { LockEntry, LockScope, LockStore } from './lock-store.js';
import type { NeighbourSource } from './neighbours.js';
import { headContains, repoHeadOf, sameCommit } from './repositories.js';
import type { Agent } from './tokens.js';

/** The coordination parts of the app: the lock store, the import-graph neighbours, the lock TTL. */
export interface CoordinationSettings {
  locks: LockStore;
  neighbours: NeighbourSource;
  /** LOCK_TTL_SECONDS, in milliseconds. */
  lockTtlMs: number;
}

/** What the rules need from the app (AppDeps satisfies it). */
export interface CoordinationDeps {
  db: Db;
  now: () => number;
  events: Pick<EventLog, 'append'>;
  coordination: CoordinationSettings;
}

const command = (
  action: Orchestration['action'],
  commandLine: string | null,
  reason: string,
  metadata?: Orchestration['metadata'],
): Orchestration => ({
  type: 'orchestration_command',
  action,
  command: commandLine,
  reason,
  ...(metadata ? { metadata } : {}),
});

const seconds = (ms: number) => Math.floor(ms / 1000);
const unique = (values: Iterable<string>) => [...new Set(values)];

const describeLock = (lock: LockEntry, type?: 'DIRECT' | 'NEIGHBOR') =>
  `File '${lock.path}' is locked by '${lock.holder.name}' (${lock.holder.id})${type ? ` (${type})` : ''}: “${lock.message}”`;

const viewOf = (lock: LockEntry, lockType: 'DIRECT' | 'NEIGHBOR'): LockView => ({
  user: lock.holder.id,
  user_name: lock.holder.name,
  status: lock.status,
  lock_type: lockType,
  message: lock.message,
  timestamp: seconds(lock.timestamp),
});

async function contextOf(deps: CoordinationDeps, agent: Agent, input: { repo_url: string; branch: string }) {
  const project = await resolveProjectByRepoUrl(deps, agent.userId, input.repo_url);
  const repoHead = await repoHeadOf(project, input.branch);
  const scope: LockScope = { projectId: project.id, branch: input.branch };
  const warnings =
    repoHead === null ? [`BRANCH_NOT_FOUND: '${input.branch}' does not exist in the repository yet.`] : [];
  return { project, repoHead, scope, warnings };
}

/**
 * check_status: other agents' locks on the files (DIRECT) and on their import neighbours (NEIGHBOR),
 * and what to do. First match wins: a WRITING lock by someone else → CONFLICT (SWITCH_TASK); the
 * agent's head is not the repository's → STALE (PULL); otherwise OK (PROCEED).
 */
export async function checkStatus(
  deps: CoordinationDeps,
  agent: Agent,
  input: CheckStatusInput,
): Promise<CheckStatusResponse> {
  const { project, repoHead, scope, warnings } = await contextOf(deps, agent, input);
  const requested = input.file_paths;
  const direct = new Set(requested);
  const around =
    requested.length > 0
      ? await deps.coordination.neighbours.neighbours(
          { id: project.id, repoPath: project.repoPath, head: repoHead },
          input.branch,
          requested,
        )
      : { imports: [], importedBy: [] };
  const neighbourPaths = unique([...around.imports, ...around.importedBy]).filter((p) => !direct.has(p));
  const found = await deps.coordination.locks.read(scope, [...requested, ...neighbourPaths], deps.now());

  const byPath = new Map<string, LockEntry[]>();
  for (const lock of found) {
    if (lock.holder.id === agent.id) continue;
    byPath.set(lock.path, [...(byPath.get(lock.path) ?? []), lock]);
  }
  const locks: Record<string, LockView> = {};
  const writers: { lock: LockEntry; type: 'DIRECT' | 'NEIGHBOR' }[] = [];
  for (const path of [...requested, ...neighbourPaths]) {
    const shown = shownLock(byPath.get(path) ?? []);
    if (!shown) continue;
    const type = direct.has(path) ? 'DIRECT' : 'NEIGHBOR';
    locks[path] = viewOf(shown, type);
    if (shown.status === 'WRITING') writers.push({ lock: shown, type });
  }

  const stale =
    input.agent_head !== undefined && repoHead !== null && !sameCommit(input.agent_head, repoHead);
  if (stale) warnings.push(`STALE_BRANCH: your head differs from '${input.branch}' in the repository.`);

  const first = writers[0];
  if (first) {
    return {
      status: 'CONFLICT',
      repo_head: repoHead,
      locks,
      warnings,
      orchestration: command('SWITCH_TASK', null, describeLock(first.lock, first.type), {
        lock_owner: first.lock.holder.id,
        conflicts: writers.map((w) => w.lock.path),
      }),
    };
  }
  if (stale) {
    return {
      status: 'STALE',
      repo_head: repoHead,
      locks,
      warnings,
      orchestration: command(
        'PULL',
        'git pull --rebase',
        `Your head is not the head of '${input.branch}': pull before you edit.`,
        { remote_head: repoHead },
      ),
    };
  }
  return {
    status: 'OK',
    repo_head: repoHead,
    locks,
    warnings,
    orchestration: command('PROCEED', null, 'No other agent is writing these files or their neighbours.'),
  };
}

/**
 * post_status: READING/WRITING takes every lock or none (WAIT, or STOP for files the agent lost to
 * expiry and someone else took); OPEN releases them once the repository's branch contains
 * `new_repo_head` (else PUSH), answering the files that import the released ones.
 */
export async function postStatus(
  deps: CoordinationDeps,
  agent: Agent,
  input: PostStatusInput,
): Promise<PostStatusResponse> {
  const { project, repoHead, scope } = await contextOf(deps, agent, input);
  const { locks, neighbours, lockTtlMs } = deps.coordination;
  const now = deps.now();
  const holder = { id: agent.id, name: agent.name };
  const activity = { branch: input.branch, agent: holder, message: input.message, timestamp: now };
  const record = (event: CoordinationEvent) => deps.events.append(projectStream(project.id), event);
  const answer = (
    success: boolean,
    orchestration: Orchestration,
    orphaned: string[] = [],
  ): PostStatusResponse => ({
    success,
    repo_head: repoHead,
    orphaned_dependencies: orphaned,
    orchestration,
  });

  /** Files of the request the agent lost to expiry that another agent now writes. */
  const lostToOthers = async (paths: string[]) => {
    const lost = new Set(await locks.lost(scope, agent.id, paths, now));
    if (lost.size === 0) return [];
    const current = await locks.read(scope, [...lost], now);
    return current.filter((l) => l.holder.id !== agent.id && l.status === 'WRITING');
  };
  const stop = async (taken: LockEntry[]) => {
    const [first] = taken;
    if (!first) throw new Error('stop needs a lock');
    const conflicts = unique(taken.map((l) => l.path));
    await record({
      type: 'lock-refused',
      data: {
        ...activity,
        files: input.file_paths,
        status: input.status,
        conflicts,
        holder: first.holder.id,
        holderName: first.holder.name,
      },
    });
    return answer(
      false,
      command(
        'STOP',
        null,
        `Your lock on '${first.path}' expired and '${first.holder.name}' (${first.holder.id}) holds it now: “${first.message}”. Stop, and check your changes against theirs.`,
        { lock_owner: first.holder.id, conflicts },
      ),
    );
  };

  if (input.status === 'OPEN') {
    // STOP comes before PUSH, and PUSH before a release: the head is checked first (no store call),
    // then one store step answers STOP or releases.
    if (!(await headContains(project, repoHead, input.new_repo_head ?? ''))) {
      const taken = await lostToOthers(input.file_paths);
      if (taken.length > 0) return stop(taken);
      return answer(
        false,
        command(
          'PUSH',
          'git push',
          `'${input.branch}' in the repository does not contain ${input.new_repo_head}: push, then post OPEN again. Your locks are kept.`,
          { remote_head: repoHead },
        ),
      );
    }
    const outcome = await locks.releaseUnlessTaken(scope, agent.id, input.file_paths, now);
    if (!outcome.ok) return stop(outcome.taken);
    const { released } = outcome;
    if (released.length === 0) {
      return answer(true, command('PROCEED', null, 'You held none of these files: nothing changed.'));
    }
    await record({ type: 'lock-released', data: { ...activity, files: released, status: 'OPEN' } });
    const { importedBy } = await neighbours.neighbours(
      { id: project.id, repoPath: project.repoPath, head: repoHead },
      input.branch,
      released,
    );
    const freed = new Set(released);
    const orphaned = unique(importedBy).filter((p) => !freed.has(p));
    return answer(true, command('PROCEED', null, `Released ${released.length} file(s).`), orphaned);
  }

  const result = await locks.acquire(scope, {
    holder,
    paths: input.file_paths,
    status: input.status,
    message: input.message,
    agentHead: input.agent_head ?? null,
    now,
    ttlMs: lockTtlMs,
  });
  if (result.ok) {
    await record({
      type: 'lock-taken',
      data: { ...activity, files: input.file_paths, status: input.status },
    });
    return answer(
      true,
      command('PROCEED', null, `${input.status} lock held on ${input.file_paths.length} file(s).`),
    );
  }
  // Files the agent lost to expiry that another now writes: in the refusal itself (one round trip).
  const lost = new Set(result.lost);
  const lostAndTaken = result.conflicts.filter((l) => lost.has(l.path));
  if (lostAndTaken.length > 0) return stop(lostAndTaken);
  const [first] = result.conflicts;
  const conflicts = unique(result.conflicts.map((l) => l.path));
  await record({
    type: 'lock-refused',
    data: {
      ...activity,
      files: input.file_paths,
      status: input.status,
      conflicts,
      holder: first?.holder.id ?? '',
      ...(first ? { holderName: first.holder.name } : {}),
    },
  });
  return answer(
    false,
    command(
      'WAIT',
      'sleep 5',
      first ? `${describeLock(first)}. No lock was taken.` : 'Locked by another agent.',
      {
        lock_owner: first?.holder.id ?? '',
        conflicts,
      },
    ),
  );
}
