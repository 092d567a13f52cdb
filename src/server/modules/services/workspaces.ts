import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Workspace } from '@/contracts/services.js';
import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import { getOwnedProject } from '../projects/projects.js';
import { heldBehind } from '../workspace/checkout-hold.js';
import {
  ensureWorkspaceIds,
  findWorkspaceRecord,
  runCheckouts,
  type WorkspaceRecord,
} from './workspaces.repo.js';

export interface WorkspacesDeps {
  db: Db;
  /** Runs' worktrees are at `<dataDir>/worktrees/<runId>` until they record their own path. */
  dataDir: string;
}

/** A workspace with its checkout on disk, for starting services in it. */
export interface ResolvedWorkspace extends Workspace {
  /** The checkout's directory. */
  dir: string;
  userId: string;
  /** The project's variables for its services. */
  serviceEnv: Record<string, string>;
  /** The project's network allow-list for its sandboxes; null: the operator's. */
  allowedHosts: string[] | null;
  /** Visible read-only in the sandbox: the project's git directory a run's worktree points into. */
  readOnlyPaths: string[];
  /** The project's setup command, run in the checkout before its first service when its lockfiles changed. */
  setup: { command: string; timeoutSeconds: number } | null;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

export const isWorkspaceId = (value: string) => ULID.test(value);

const workspaceNotFound = () => new AppError('WORKSPACE_NOT_FOUND', 'Workspace not found');

async function isDirectory(dir: string): Promise<boolean> {
  return (await stat(dir).catch(() => null))?.isDirectory() ?? false;
}

const checkoutOf = (dataDir: string, record: Pick<WorkspaceRecord, 'runId' | 'worktreePath' | 'repoPath'>) =>
  record.runId === null
    ? record.repoPath
    : (record.worktreePath ?? path.join(dataDir, 'worktrees', record.runId));

/**
 * The project's workspaces: its own checkout (the default branch), then each run's worktree that
 * exists on disk now. Ids are given on first sight and kept. Another user's project answers 404.
 */
export async function listWorkspaces(
  deps: WorkspacesDeps,
  userId: string,
  projectId: string,
): Promise<Workspace[]> {
  const project = await getOwnedProject(deps, userId, projectId);
  const runs = [];
  for (const run of await runCheckouts(deps.db, projectId)) {
    if (await isDirectory(checkoutOf(deps.dataDir, { ...run, repoPath: project.repoPath }))) runs.push(run);
  }
  const ids = await ensureWorkspaceIds(
    deps.db,
    projectId,
    runs.map((run) => run.runId),
  );
  const workspaces: Workspace[] = [];
  const own = ids.get('');
  if (own) {
    workspaces.push({
      id: own,
      kind: 'project',
      projectId,
      taskId: null,
      runId: null,
      branch: project.defaultBranch,
      heldAt: await heldBehind(project.repoPath, project.defaultBranch),
    });
  }
  for (const run of runs) {
    const id = ids.get(run.runId);
    if (!id) continue;
    workspaces.push({
      id,
      kind: 'run',
      projectId,
      taskId: run.taskId,
      runId: run.runId,
      branch: run.branch ?? '',
      heldAt: null,
    });
  }
  return workspaces;
}

/** The workspace whose checkout exists, whoever owns it; 404 otherwise. */
export async function resolveWorkspace(
  deps: WorkspacesDeps,
  workspaceId: string,
): Promise<ResolvedWorkspace> {
  if (!isWorkspaceId(workspaceId)) throw workspaceNotFound();
  const record = await findWorkspaceRecord(deps.db, workspaceId.toUpperCase());
  if (!record) throw workspaceNotFound();
  const dir = checkoutOf(deps.dataDir, record);
  if (!(await isDirectory(dir))) throw workspaceNotFound();
  return {
    id: record.id,
    kind: record.runId === null ? 'project' : 'run',
    projectId: record.projectId,
    taskId: record.taskId,
    runId: record.runId,
    branch: record.runId === null ? record.defaultBranch : (record.branch ?? ''),
    dir,
    userId: record.userId,
    serviceEnv: record.serviceEnv,
    allowedHosts: record.sandboxAllowedHosts ?? null,
    readOnlyPaths: record.runId === null ? [] : [path.join(record.repoPath, '.git')],
    setup: record.setupCommand
      ? { command: record.setupCommand, timeoutSeconds: record.setupTimeoutSeconds }
      : null,
  };
}

/** The user's workspace; another user's, a missing one, or one whose checkout is gone answer 404. */
export async function resolveOwnedWorkspace(
  deps: WorkspacesDeps,
  userId: string,
  workspaceId: string,
): Promise<ResolvedWorkspace> {
  const workspace = await resolveWorkspace(deps, workspaceId);
  if (workspace.userId !== userId) throw workspaceNotFound();
  return workspace;
}
