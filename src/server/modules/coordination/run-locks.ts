import { setTimeout as sleep } from 'node:timers/promises';
import { type CoordinationEvent, MAX_MESSAGE_CHARS } from '@/contracts/coordination.js';
import type { LockWaitData } from '@/contracts/pipeline.js';
import type { Db } from '@/server/db/client.js';
import { projectStream, taskStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { defaultBranchOf } from '../projects/index.js';
import type { LockEntry, LockScope, LockStore } from './lock-store.js';
import {
  deleteRunLockPaths,
  deleteRunLocks,
  type RunLockRow,
  recordedRunLocks,
  runLockPaths,
  runsHoldingOfTask,
  saveRunLockRows,
} from './run-locks.repo.js';

/**
 * A pipeline run's locks last until the run ends (cancel, failure, approval), not the agents' TTL: a run
 * holds them through Review without posting again. This bound only frees files whose run's end was never
 * recorded (a process killed while the locks live on in Redis).
 */
export const RUN_LOCK_TTL_MS = 24 * 60 * 60 * 1000;
/** The runs whose recorded locks a start-up takes again: those that may still write, or wait in Review. */
const HOLDING_RUN_STATUSES: ReadonlySet<string> = new Set(['running', 'paused', 'passed']);

/** What `restore` took again, and what it could not. */
export interface RestoreSummary {
  runs: number;
  files: number;
  dropped: { runId: string; paths: string[] }[];
}
/** How often a waiting run asks again. */
const RETRY_EVERY_MS = 1000;

/** The agent a pipeline run is: its own id, named after its task. */
export interface RunAgent {
  runId: string;
  taskId: string;
  projectId: string;
  taskTitle: string;
}

export interface RunLockDeps {
  db: Db;
  now: () => number;
  events: Pick<EventLog, 'append'>;
  locks: LockStore;
  /** LOCK_WAIT_SECONDS, in milliseconds: how long a run waits for another agent's lock before it pauses. */
  waitMs: number;
}

/** Another agent writes a file the run's coder changed, and did not let go within the wait. */
export class LockConflictError extends Error {
  constructor(
    readonly lock: Pick<LockEntry, 'path' | 'holder' | 'message'>,
    waitedMs: number,
  ) {
    super(
      `'${lock.path}' is being written by '${lock.holder.name}' (${lock.holder.id}): “${lock.message}”. ` +
        `Waited ${Math.round(waitedMs / 1000)} s; Retry once they release it.`,
    );
    this.name = 'LockConflictError';
  }
}

/** One sentence of intent from a subtask's text: its first sentence, at most 500 characters. */
export function oneSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/[.!?](\s|$)/);
  const sentence = end >= 0 ? flat.slice(0, end + 1) : flat;
  const bounded =
    sentence.length > MAX_MESSAGE_CHARS ? `${sentence.slice(0, MAX_MESSAGE_CHARS - 1)}…` : sentence;
  return bounded || 'Pipeline run writes its changes.';
}

const holderOf = (run: RunAgent) => ({ id: run.runId, name: run.taskTitle });

/**
 * The file locks of AutoCoder's own runs, under the same rules and store as external agents, in the
 * scope of the project's default branch: that is where the run's branch is merged, and where agents
 * working on the project lock their files.
 */
/** Locks a running run took since it last waited, to record when it waits (Review, a pause). */
interface UnrecordedLocks {
  values: { runId: string; branch: string; holderName: string; message: string; takenAt: number };
  /** Path → the values it was taken with. */
  paths: Map<string, UnrecordedLocks['values']>;
}

export class RunLocks {
  private readonly unrecorded = new Map<string, UnrecordedLocks>();

  constructor(private readonly deps: RunLockDeps) {}

  /**
   * Takes WRITING locks on `paths` for the run, all or none. While another agent writes one of them,
   * retries every second for up to `waitMs`, then
   * throws `LockConflictError` naming the file, the holder and its message. `signal` ends the wait.
   */
  async hold(run: RunAgent, paths: readonly string[], intent: string, signal: AbortSignal): Promise<void> {
    const files = [...new Set(paths)];
    if (files.length === 0) return;
    const scope = await this.scopeOf(run.projectId);
    const message = oneSentence(intent);
    const until = this.deps.now() + this.deps.waitMs;
    const wait: { for: LockEntry | null } = { for: null };
    try {
      await this.waitAndHold(run, files, message, scope, signal, async (first) => {
        if (wait.for) return;
        wait.for = first;
        await this.tellWait(run, first, until);
      });
    } finally {
      // The wait is over, whatever ended it: the lock taken, the wait given up, the run stopped.
      if (wait.for) await this.tellWait(run, wait.for, null).catch(() => undefined);
    }
  }

  /**
   * `lock-wait` on the task's stream (the drawer's stepper) and the project's (the card): whom the run
   * waits for and until when, or (`until` null) that it waits no more.
   */
  private async tellWait(run: RunAgent, lock: Pick<LockEntry, 'path' | 'holder'>, until: number | null) {
    const data: LockWaitData = {
      runId: run.runId,
      taskId: run.taskId,
      path: lock.path,
      holder: { id: lock.holder.id, name: lock.holder.name },
      until,
      timestamp: this.deps.now(),
    };
    await this.deps.events.append(taskStream(run.taskId), { type: 'lock-wait', data });
    await this.deps.events.append(projectStream(run.projectId), { type: 'lock-wait', data });
  }

  private async waitAndHold(
    run: RunAgent,
    files: string[],
    message: string,
    scope: LockScope,
    signal: AbortSignal,
    onRefused: (first: LockEntry) => Promise<void>,
  ): Promise<void> {
    const started = performance.now();
    let refusedOnce = false;
    for (;;) {
      signal.throwIfAborted();
      const now = this.deps.now();
      const result = await this.deps.locks.acquire(scope, {
        holder: holderOf(run),
        paths: files,
        status: 'WRITING',
        message,
        agentHead: null,
        now,
        ttlMs: RUN_LOCK_TTL_MS,
      });
      const activity = {
        branch: scope.branch,
        agent: holderOf(run),
        files,
        message,
        timestamp: now,
        taskId: run.taskId,
      };
      if (result.ok) {
        // Recorded (one write) when the run waits holding them — Review, a pause — so that a
        // restart takes them again (`restore`); a running run's are kept in memory till then.
        this.remember(
          { runId: run.runId, branch: scope.branch, holderName: run.taskTitle, message, takenAt: now },
          files,
        );
        await this.record(run.projectId, { type: 'lock-taken', data: { ...activity, status: 'WRITING' } });
        // Cancelled while the locks were being taken: the cancel's release may have run before them.
        if (signal.aborted) await this.releaseAll(run);
        signal.throwIfAborted();
        return;
      }
      const [first] = result.conflicts;
      if (!first) throw new Error('a refused acquire names its conflicts');
      if (!refusedOnce) {
        // Once per wait: the feed tells who is in the way, not every second of waiting.
        refusedOnce = true;
        const conflicts = [...new Set(result.conflicts.map((l) => l.path))];
        await this.record(run.projectId, {
          type: 'lock-refused',
          data: {
            ...activity,
            status: 'WRITING',
            conflicts,
            holder: first.holder.id,
            holderName: first.holder.name,
          },
        });
      }
      await onRefused(first);
      const waited = performance.now() - started;
      if (waited >= this.deps.waitMs) throw new LockConflictError(first, waited);
      await sleep(Math.min(RETRY_EVERY_MS, this.deps.waitMs - waited), undefined, { signal });
    }
  }

  private remember(values: UnrecordedLocks['values'], files: readonly string[]) {
    const known = this.unrecorded.get(values.runId);
    const paths = new Map(known?.paths);
    for (const file of files) paths.set(file, values);
    this.unrecorded.set(values.runId, { values, paths });
  }

  /** Writes the run's locks taken since it last waited (one statement), so that a restart takes them again. */
  async recordHeld(runId: string): Promise<void> {
    const known = this.unrecorded.get(runId);
    if (!known) return;
    this.unrecorded.delete(runId);
    await saveRunLockRows(
      this.deps.db,
      [...known.paths].map(([path, values]) => ({ ...values, path })),
    );
  }

  /** Releases every lock the run holds in its project (the run ended); returns the files released. */
  async releaseAll(run: Omit<RunAgent, 'taskTitle'>): Promise<string[]> {
    this.unrecorded.delete(run.runId);
    // Forgotten first: a restart from here on does not take them again.
    await deleteRunLocks(this.deps.db, run.runId);
    const scope = await this.scopeOf(run.projectId).catch(() => null);
    if (!scope) return [];
    const now = this.deps.now();
    const held = (await this.deps.locks.list(scope, now)).filter((l) => l.holder.id === run.runId);
    if (held.length === 0) return [];
    const released = await this.deps.locks.release(
      scope,
      run.runId,
      held.map((l) => l.path),
      now,
    );
    const first = held[0];
    if (released.length > 0 && first) {
      await this.record(run.projectId, {
        type: 'lock-released',
        data: {
          branch: scope.branch,
          agent: first.holder,
          files: released,
          status: 'OPEN',
          message: first.message,
          timestamp: now,
          taskId: run.taskId,
        },
      });
    }
    return released;
  }

  /** Releases the locks of every run of the task (the task is being deleted, its runs with it). */
  async releaseTask(taskId: string, projectId: string): Promise<void> {
    for (const runId of await runsHoldingOfTask(this.deps.db, taskId))
      await this.releaseAll({ runId, taskId, projectId });
  }

  /**
   * At start-up: takes again, from their records, the locks of runs that still hold them (passed and
   * waiting in Review, or paused), under the run's identity (its id, the name, path and message they
   * were taken with), expiring when they would have (`takenAt` + RUN_LOCK_TTL_MS). The in-process store
   * starts empty; a Redis store may still have them, and taking them again changes nothing but their
   * timestamp. Records of runs that ended, or older than the bound, are deleted. No event is written:
   * the locks did not change hands.
   */
  async restore(): Promise<RestoreSummary> {
    const now = this.deps.now();
    const rows = await recordedRunLocks(this.deps.db);
    const summary: RestoreSummary = { runs: 0, files: 0, dropped: [] };
    const groups = new Map<string, { projectId: string; lock: RunLockRow; paths: string[] }>();
    const stale = new Map<string, string[]>();
    for (const row of rows) {
      const { lock } = row;
      const holds =
        HOLDING_RUN_STATUSES.has(row.runStatus) &&
        row.taskStatus !== 'done' &&
        lock.takenAt + RUN_LOCK_TTL_MS > now;
      if (!holds) {
        stale.set(lock.runId, [...(stale.get(lock.runId) ?? []), lock.path]);
        continue;
      }
      const key = JSON.stringify([lock.runId, lock.branch, lock.holderName, lock.message, lock.takenAt]);
      const group = groups.get(key);
      if (group) group.paths.push(lock.path);
      else groups.set(key, { projectId: row.projectId, lock, paths: [lock.path] });
    }
    for (const [runId, paths] of stale) await deleteRunLockPaths(this.deps.db, runId, paths);
    const restored = new Map<string, { scope: LockScope; paths: string[] }[]>();
    for (const { projectId, lock, paths } of groups.values()) {
      const scope = { projectId, branch: lock.branch };
      const result = await this.deps.locks.acquire(scope, {
        holder: { id: lock.runId, name: lock.holderName },
        paths,
        status: 'WRITING',
        message: lock.message,
        agentHead: null,
        now,
        ttlMs: lock.takenAt + RUN_LOCK_TTL_MS - now,
      });
      if (!result.ok) {
        // Only a shared store can have given a file away meanwhile; the run no longer holds it.
        await deleteRunLockPaths(this.deps.db, lock.runId, paths);
        summary.dropped.push({ runId: lock.runId, paths });
        continue;
      }
      restored.set(lock.runId, [...(restored.get(lock.runId) ?? []), { scope, paths }]);
    }
    // A run released by another process (sharing the database and a Redis store) while these were
    // read keeps none of them.
    for (const [runId, taken] of restored) {
      const recorded = new Set(await runLockPaths(this.deps.db, runId));
      for (const { scope, paths } of taken) {
        const gone = paths.filter((p) => !recorded.has(p));
        if (gone.length > 0) await this.deps.locks.release(scope, runId, gone, now);
        summary.files += paths.length - gone.length;
      }
      summary.runs += 1;
    }
    return summary;
  }

  private async scopeOf(projectId: string): Promise<LockScope> {
    const branch = await defaultBranchOf(this.deps.db, projectId);
    if (!branch) throw new Error(`project ${projectId} not found`);
    return { projectId, branch };
  }

  private record(projectId: string, event: CoordinationEvent) {
    return this.deps.events.append(projectStream(projectId), event);
  }
}
