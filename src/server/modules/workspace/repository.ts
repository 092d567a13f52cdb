import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { ProjectFile, ProjectTree } from '@/contracts/projects.js';
import { AppError } from '@/server/lib/errors.js';
import { GitError, git, gitText } from '@/server/lib/git.js';
import { safeRelativePath } from './confine.js';
import {
  checkImportPath,
  checkRemoteUrl,
  describeCloneFailure,
  type ImportAccess,
  isLocalRemote,
} from './import-source.js';
import { branchCommit } from './refs.js';
import { treeFiles } from './tree.js';

/** How long a clone may take before it is abandoned with a clear error. */
export const CLONE_TIMEOUT_MS = 60_000;
/** Files larger than this are sent truncated. */
export const MAX_FILE_BYTES = 1024 * 1024;

export function repositoryPath(dataDir: string, projectId: string): string {
  return path.join(dataDir, 'repos', projectId);
}

/** A new repository with one empty commit on `main`. */
export async function initRepository(dir: string): Promise<{ defaultBranch: string }> {
  await mkdir(path.dirname(dir), { recursive: true });
  await git(['init', '--quiet', '--initial-branch=main', dir]);
  await git(['commit', '--quiet', '--allow-empty', '-m', 'Initial commit'], { cwd: dir });
  return { defaultBranch: 'main' };
}

/** Hides credentials in a URL (`https://user:token@host` → `https://***@host`). */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@\s]*@/i, '$1***@');
}

/**
 * Clones a repository into `dir`. `source` is a local path (importPath, allowed by the operator's
 * import roots) or a URL (repoUrl, cloned by an untrusted git pinned to the address it checked).
 * Returns the canonical URL (the origin's, credentials removed; null when there is none that is
 * not a path on this server) and the default branch.
 */
export async function cloneRepository(
  source: { importPath: string } | { repoUrl: string },
  dir: string,
  access: ImportAccess,
): Promise<{ repoUrl: string | null; defaultBranch: string }> {
  const local = 'importPath' in source;
  const remote = local ? null : await checkRemoteUrl(source.repoUrl, access.network);
  const from = local ? await checkImportPath(source.importPath, access) : (remote?.url ?? '');
  const origin = local ? await originOf(from) : redactUrl(source.repoUrl);
  const canonical = origin && !isLocalRemote(origin) ? origin : null;
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await git(['clone', '--quiet', '--no-local', '--', from, dir], {
      timeoutMs: CLONE_TIMEOUT_MS,
      ...(remote ? { untrusted: true, config: remote.config } : {}),
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    if (!(error instanceof GitError)) throw error;
    // A local source fails like a missing one; a remote one with a fixed description, never its own words.
    if (local)
      throw new AppError('REPO_IMPORT_FAILED', `No git repository to import at ${source.importPath}`);
    const why = describeCloneFailure(error.stderr, error.message.includes('timed out'));
    throw new AppError('REPO_IMPORT_FAILED', `Could not clone ${canonical}: ${why}`);
  }
  const defaultBranch = (await currentBranch(dir)) ?? 'main';
  // An empty repository has no commit yet: give it one so that branches can start from it.
  if (!(await branchCommit(dir, defaultBranch))) {
    await git(['commit', '--quiet', '--allow-empty', '-m', 'Initial commit'], { cwd: dir });
  }
  // The clone's origin is the canonical URL, never a URL with credentials nor a path on this server.
  if (canonical) await git(['remote', 'set-url', 'origin', canonical], { cwd: dir });
  else await git(['remote', 'remove', 'origin'], { cwd: dir });
  return { repoUrl: canonical, defaultBranch };
}

async function originOf(dir: string): Promise<string | null> {
  try {
    const url = (await gitText(['config', '--get', 'remote.origin.url'], { cwd: dir })).trim();
    return url ? redactUrl(url) : null;
  } catch {
    return null; // exit code 1: no origin configured
  }
}

async function currentBranch(dir: string): Promise<string | null> {
  const name = (
    await gitText(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: dir }).catch(() => '')
  ).trim();
  return name || null;
}

export async function removeRepository(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/** Every file of a branch, with sizes. */
export async function listTree(dir: string, branch: string): Promise<ProjectTree> {
  const commit = await branchCommit(dir, branch);
  if (!commit) return { branch, commit: null, entries: [] };
  return { branch, commit, entries: await treeFiles(dir, commit) };
}

/** One file of a branch; paths are confined to the repository. */
export async function readRepositoryFile(
  dir: string,
  branch: string,
  filePath: string,
): Promise<ProjectFile> {
  const safe = safeRelativePath(filePath);
  if (!safe) {
    throw new AppError(
      'INVALID_PATH',
      'Path must be relative to the repository, without "..", and outside .git/',
    );
  }
  const commit = await branchCommit(dir, branch);
  if (!commit) throw new AppError('FILE_NOT_FOUND', `${safe} not found`);
  let size: number;
  try {
    const meta = (await gitText(['cat-file', '-s', `${commit}:${safe}`], { cwd: dir })).trim();
    size = Number(meta);
    const type = (await gitText(['cat-file', '-t', `${commit}:${safe}`], { cwd: dir })).trim();
    if (type !== 'blob') throw new AppError('FILE_NOT_FOUND', `${safe} is not a file`);
  } catch (error) {
    if (error instanceof GitError) throw new AppError('FILE_NOT_FOUND', `${safe} not found`);
    throw error;
  }
  const { stdout, truncated } = await git(['cat-file', 'blob', `${commit}:${safe}`], {
    cwd: dir,
    maxOutputBytes: MAX_FILE_BYTES,
  });
  const isText = !stdout.subarray(0, 8000).includes(0);
  return {
    path: safe,
    size,
    isText,
    truncated: truncated || size > stdout.length,
    content: isText ? stdout.toString('utf8') : '',
  };
}
