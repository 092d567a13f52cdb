import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type {
  CreateProjectInput,
  ImportOptions,
  Project,
  ProjectFile,
  ProjectTree,
} from '@/contracts/projects.js';
import type { Db } from '@/server/db/client.js';
import { AppError, notFound } from '@/server/lib/errors.js';
import type { Logger } from '@/server/lib/logger.js';
import type { NetworkPolicy } from '@/server/lib/network-policy.js';
import {
  cloneRepository,
  initRepository,
  listTree,
  readRepositoryFile,
  removeRepository,
  repositoryPath,
} from '../workspace/repository.js';
import { removeLinkedWorktrees } from '../workspace/worktree.js';
import { forgetProjectLookups, lookupProject } from './project-lookups.js';
import {
  deleteProjectUnlessLast,
  findOwnedProject,
  hasActiveRunInProject,
  insertProject,
  listProjectRows,
  type ProjectRow,
  type ProjectSettings,
  updateProjectSettings,
} from './projects.repo.js';
import { normaliseRepoUrl, ownProjectIdOf } from './repo-url.js';

export const DEFAULT_PROJECT_NAME = 'My Project';

/** What the projects' functions need from outside; `AppDeps` provides it. */
export interface ProjectsDeps {
  db: Db;
  /** Root of the repositories (`<dataDir>/repos`) and the runs' worktrees. */
  dataDir: string;
  /** Directories local paths may be imported from; empty: local import is off. */
  importRoots: readonly string[];
  /** Which addresses a git URL a user typed may reach. */
  network: NetworkPolicy;
  logger: Logger;
  now: () => number;
  /** The import graphs, dropped with their project. */
  graphs: { forgetProject(projectId: string): Promise<void> };
}

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    repoUrl: row.repoUrl,
    defaultBranch: row.defaultBranch,
    checkCommand: row.checkCommand,
    checkTimeoutSeconds: row.checkTimeoutSeconds,
    setupCommand: row.setupCommand,
    setupTimeoutSeconds: row.setupTimeoutSeconds,
    taskTokenBudget: row.taskTokenBudget,
    serviceEnv: row.serviceEnv,
    sandboxAllowedHosts: row.sandboxAllowedHosts ?? null,
    coderEngine: row.coderEngine,
    maxToolCalls: row.maxToolCalls,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listProjects(deps: ProjectsDeps, userId: string): Promise<Project[]> {
  return (await listProjectRows(deps.db, userId)).map(toProject);
}

/** The user's project, or 404 PROJECT_NOT_FOUND whether it is missing or someone else's. */
export async function getOwnedProject(
  deps: Pick<ProjectsDeps, 'db'>,
  userId: string,
  projectId: string,
): Promise<ProjectRow> {
  const row = await findOwnedProject(deps.db, userId, projectId);
  if (!row) throw notFound('PROJECT_NOT_FOUND', 'Project');
  return row;
}

/**
 * The user's project a repository URL names: AutoCoder's own remote of the project
 * (`…/git/<projectId>.git`, whatever host spells it: the server answers only to its own names, a
 * reverse proxy may rename them, and the id is looked up among the user's own projects) or the
 * upstream URL it was created from, compared normalised (scheme, credentials, `.git`,
 * `git@host:path`, host case). Two projects from one upstream: the older. 404 REPO_NOT_FOUND when
 * none of the user's projects matches, someone else's included. REST, MCP and the graph all use it,
 * on every call: what it found is kept for PROJECT_RECHECK_MS (see project-lookups.ts).
 */
export async function resolveProjectByRepoUrl(
  deps: Pick<ProjectsDeps, 'db' | 'now'>,
  userId: string,
  repoUrl: string,
): Promise<ProjectRow> {
  const row = await lookupProject(deps.db, userId, repoUrl, deps.now(), async () => {
    const wanted = normaliseRepoUrl(repoUrl);
    if (!wanted) return null;
    const ownId = ownProjectIdOf(wanted);
    return (
      (ownId ? await findOwnedProject(deps.db, userId, ownId) : null) ??
      (await listProjectRows(deps.db, userId)).find(
        (project) => project.repoUrl !== null && normaliseRepoUrl(project.repoUrl) === wanted,
      ) ??
      null
    );
  });
  if (!row) {
    throw new AppError(
      'REPO_NOT_FOUND',
      'No repository of yours has this repo_url: use the project’s clone URL',
    );
  }
  return row;
}

/**
 * Creates a project with its repository: a new one with an initial commit on `main`,
 * or a clone of a local repository (`importPath`) or of a git URL (`repoUrl`).
 */
export async function createProjectForUser(
  deps: ProjectsDeps,
  userId: string,
  input: CreateProjectInput,
): Promise<Project> {
  const row = await withNewRepository(deps, input, (repo) =>
    insertProject(deps.db, { userId, name: input.name, ...repo }),
  );
  deps.logger.info('project created', { projectId: row.id, userId });
  return toProject(row);
}

/**
 * Creates an account and its first project in one transaction: `insertOwner` writes the
 * owner's row in `tx`, then the project's row follows. When either insert fails, neither row
 * nor the new repository is left behind. The repository is made before the transaction, so
 * git never runs while the transaction holds a connection.
 */
export async function createWithFirstProject<Owner extends { id: string }>(
  deps: ProjectsDeps,
  insertOwner: (tx: Db) => Promise<Owner>,
): Promise<Owner> {
  const name = DEFAULT_PROJECT_NAME;
  const { owner, project } = await withNewRepository(deps, { name }, (repo) =>
    deps.db.transaction(async (tx) => {
      const owner = await insertOwner(tx);
      const project = await insertProject(tx, { userId: owner.id, name, ...repo });
      return { owner, project };
    }),
  );
  deps.logger.info('project created', { projectId: project.id, userId: owner.id });
  return owner;
}

type NewRepository = Pick<ProjectRow, 'id' | 'repoPath' | 'repoUrl' | 'defaultBranch'>;

/** Makes a new project's repository, then `save`s its row; when saving fails, the repository goes. */
async function withNewRepository<T>(
  deps: ProjectsDeps,
  input: CreateProjectInput,
  save: (repo: NewRepository) => Promise<T>,
): Promise<T> {
  const id = randomUUID();
  const dir = repositoryPath(deps.dataDir, id);
  const access = { dataDir: deps.dataDir, importRoots: deps.importRoots, network: deps.network };
  let repo: { repoUrl: string | null; defaultBranch: string };
  if (input.importPath) repo = await cloneRepository({ importPath: input.importPath }, dir, access);
  else if (input.repoUrl) repo = await cloneRepository({ repoUrl: input.repoUrl }, dir, access);
  else repo = { repoUrl: null, ...(await initRepository(dir)) };
  try {
    return await save({ id, repoPath: dir, ...repo });
  } catch (error) {
    await removeRepository(dir);
    throw error;
  }
}

/** What the import dialog may offer: a local path only when the operator set import roots. */
export function importOptions(deps: Pick<ProjectsDeps, 'importRoots'>): ImportOptions {
  return { localImport: deps.importRoots.length > 0 };
}

/** Renames the project, sets its check, its task token budget and its services' environment (PATCH /api/projects/:id); fields left out stay. */
export async function updateOwnedProject(
  deps: ProjectsDeps,
  userId: string,
  projectId: string,
  settings: ProjectSettings,
): Promise<Project> {
  await getOwnedProject(deps, userId, projectId);
  const row = await updateProjectSettings(deps.db, projectId, settings, new Date(deps.now()));
  forgetProjectLookups(deps.db, projectId);
  return toProject(row);
}

/** Deletes the project, its tasks and runs, then its runs' worktrees and its repository. The last project stays. */
export async function deleteOwnedProject(
  deps: ProjectsDeps,
  userId: string,
  projectId: string,
): Promise<void> {
  const row = await getOwnedProject(deps, userId, projectId);
  if (await hasActiveRunInProject(deps.db, projectId)) {
    throw new AppError(
      'PIPELINE_ACTIVE',
      'Pipelines are working in this project. Cancel them before deleting it.',
    );
  }
  if (!(await deleteProjectUnlessLast(deps.db, userId, projectId))) {
    throw new AppError('LAST_PROJECT', 'You cannot delete your only project. Create another project first.');
  }
  forgetProjectLookups(deps.db, projectId);
  // Runs waiting in Review keep their worktrees; nothing else would ever remove them now.
  await removeLinkedWorktrees(row.repoPath, path.join(deps.dataDir, 'worktrees')).catch((error: unknown) =>
    deps.logger.warn('worktrees of a deleted project could not be listed', { projectId, error }),
  );
  await removeRepository(row.repoPath);
  await deps.graphs.forgetProject(projectId);
  deps.logger.info('project deleted', { projectId, userId });
}

export async function projectTree(
  deps: ProjectsDeps,
  userId: string,
  projectId: string,
): Promise<ProjectTree> {
  const row = await getOwnedProject(deps, userId, projectId);
  return listTree(row.repoPath, row.defaultBranch);
}

export async function projectFile(
  deps: ProjectsDeps,
  userId: string,
  projectId: string,
  path: string,
): Promise<ProjectFile> {
  const row = await getOwnedProject(deps, userId, projectId);
  return readRepositoryFile(row.repoPath, row.defaultBranch, path);
}
