import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type {
  CreateProjectInput,
  ImportOptions,
  Project,
  ProjectFile,
  ProjectTree,
} from '@/contracts/projects.js';
import type { AppDeps } from '@/server/deps.js';
import { AppError, notFound } from '@/server/lib/errors.js';
import {
  cloneRepository,
  initRepository,
  listTree,
  readRepositoryFile,
  removeRepository,
  repositoryPath,
} from '../workspace/repository.js';
import { removeLinkedWorktrees } from '../workspace/worktree.js';
import {
  deleteProjectUnlessLast,
  findOwnedProject,
  hasActiveRunInProject,
  insertProject,
  listProjectRows,
  type ProjectRow,
  renameProject,
} from './projects.repo.js';
import { normaliseRepoUrl, ownRemoteProjectId } from './repo-url.js';

export const DEFAULT_PROJECT_NAME = 'My Project';

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    repoUrl: row.repoUrl,
    defaultBranch: row.defaultBranch,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listProjects(deps: AppDeps, userId: string): Promise<Project[]> {
  return (await listProjectRows(deps.db, userId)).map(toProject);
}

/** The user's project, or 404 PROJECT_NOT_FOUND whether it is missing or someone else's. */
export async function getOwnedProject(
  deps: Pick<AppDeps, 'db'>,
  userId: string,
  projectId: string,
): Promise<ProjectRow> {
  const row = await findOwnedProject(deps.db, userId, projectId);
  if (!row) throw notFound('PROJECT_NOT_FOUND', 'Project');
  return row;
}

/**
 * The user's project a repository URL names: AutoCoder's own remote of the project
 * (`<own host>/git/<projectId>.git`) or the upstream URL it was created from, compared normalised
 * (scheme, credentials, `.git`, `git@host:path`, host case). Two projects from one upstream: the
 * older. 404 REPO_NOT_FOUND when none of the user's projects matches, someone else's included.
 */
export async function resolveProjectByRepoUrl(
  deps: Pick<AppDeps, 'db'>,
  userId: string,
  repoUrl: string,
  ownHosts: ReadonlySet<string>,
): Promise<ProjectRow> {
  const wanted = normaliseRepoUrl(repoUrl);
  const ownId = wanted ? ownRemoteProjectId(wanted, ownHosts) : null;
  const row = ownId
    ? await findOwnedProject(deps.db, userId, ownId)
    : wanted
      ? ((await listProjectRows(deps.db, userId)).find(
          (project) => project.repoUrl !== null && normaliseRepoUrl(project.repoUrl) === wanted,
        ) ?? null)
      : null;
  if (!row) throw new AppError('REPO_NOT_FOUND', 'No repository of yours has this URL');
  return row;
}

/**
 * Creates a project with its repository: a new one with an initial commit on `main`,
 * or a clone of a local repository (`importPath`) or of a git URL (`repoUrl`).
 */
export async function createProjectForUser(
  deps: AppDeps,
  userId: string,
  input: CreateProjectInput,
): Promise<Project> {
  const id = randomUUID();
  const dir = repositoryPath(deps.dataDir, id);
  const access = { dataDir: deps.dataDir, importRoots: deps.importRoots, network: deps.network };
  let repo: { repoUrl: string | null; defaultBranch: string };
  if (input.importPath) repo = await cloneRepository({ importPath: input.importPath }, dir, access);
  else if (input.repoUrl) repo = await cloneRepository({ repoUrl: input.repoUrl }, dir, access);
  else repo = { repoUrl: null, ...(await initRepository(dir)) };
  try {
    const row = await insertProject(deps.db, {
      id,
      userId,
      name: input.name,
      repoPath: dir,
      repoUrl: repo.repoUrl,
      defaultBranch: repo.defaultBranch,
    });
    deps.logger.info('project created', { projectId: id, userId });
    return toProject(row);
  } catch (error) {
    await removeRepository(dir);
    throw error;
  }
}

/** What the import dialog may offer: a local path only when the operator set import roots. */
export function importOptions(deps: Pick<AppDeps, 'importRoots'>): ImportOptions {
  return { localImport: deps.importRoots.length > 0 };
}

export async function renameOwnedProject(deps: AppDeps, userId: string, projectId: string, name: string) {
  await getOwnedProject(deps, userId, projectId);
  return toProject(await renameProject(deps.db, projectId, name, new Date(deps.now())));
}

/** Deletes the project, its tasks and runs, then its runs' worktrees and its repository. The last project stays. */
export async function deleteOwnedProject(deps: AppDeps, userId: string, projectId: string): Promise<void> {
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
  // Runs waiting in Review keep their worktrees; nothing else would ever remove them now.
  await removeLinkedWorktrees(row.repoPath, path.join(deps.dataDir, 'worktrees')).catch((error: unknown) =>
    deps.logger.warn('worktrees of a deleted project could not be listed', { projectId, error }),
  );
  await removeRepository(row.repoPath);
  await deps.graphs.forgetProject(projectId);
  deps.logger.info('project deleted', { projectId, userId });
}

export async function projectTree(deps: AppDeps, userId: string, projectId: string): Promise<ProjectTree> {
  const row = await getOwnedProject(deps, userId, projectId);
  return listTree(row.repoPath, row.defaultBranch);
}

export async function projectFile(
  deps: AppDeps,
  userId: string,
  projectId: string,
  path: string,
): Promise<ProjectFile> {
  const row = await getOwnedProject(deps, userId, projectId);
  return readRepositoryFile(row.repoPath, row.defaultBranch, path);
}
