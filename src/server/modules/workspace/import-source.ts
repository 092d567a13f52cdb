import { realpath, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';
import { resolveAllowed } from '@/server/lib/guarded-fetch.js';
import type { NetworkPolicy } from '@/server/lib/network-policy.js';
import { containedGitDir } from './import-git-dir.js';

/** What decides which sources a user may import from. */
export interface ImportAccess {
  /** The data directory: never a source, whatever the roots say (it holds every user's repositories). */
  dataDir: string;
  /** AUTOCODER_IMPORT_ROOTS: absolute directories local paths may be imported from; empty means off. */
  importRoots: readonly string[];
  network: NetworkPolicy;
}

const pathNotAllowed = (reason: string) => new AppError('IMPORT_PATH_NOT_ALLOWED', reason);

/**
 * The git directory to clone for a local repository the user may import, or an error. A missing
 * path, a file, a directory that is not a repository and a repository that leads out of the roots
 * or into the data dir (by a symbolic link, a `.git` file, its common dir or its alternates: see
 * `containedGitDir`) all get the same 422, so that answers cannot be used to probe the server's
 * filesystem. Only a path outside the roots by its very name is told so.
 */
export async function checkImportPath(importPath: string, access: ImportAccess): Promise<string> {
  if (!path.isAbsolute(importPath)) {
    throw new AppError('VALIDATION_ERROR', 'importPath must be an absolute path', {
      fields: { importPath: ['Must be an absolute path on the server'] },
    });
  }
  if (access.importRoots.length === 0) {
    throw pathNotAllowed(
      'Importing from a path on the server is turned off. The operator can allow directories with AUTOCODER_IMPORT_ROOTS.',
    );
  }
  const roots = await Promise.all(access.importRoots.map(realOrSelf));
  const dataDirs = [path.resolve(access.dataDir), await realOrSelf(access.dataDir)];
  // First by name, which tells nothing about the disk.
  const lexical = path.resolve(importPath);
  if (
    !isUnderAny(lexical, [...access.importRoots.map((r) => path.resolve(r)), ...roots]) ||
    isUnderAny(lexical, dataDirs)
  ) {
    throw pathNotAllowed(
      `${importPath} is not inside a directory the operator allows imports from (AUTOCODER_IMPORT_ROOTS)`,
    );
  }
  // Then by what it really is, so that no symbolic link, `.git` file, common dir or alternate
  // leads out of the roots or into the data dir; a refusal reads like a missing path.
  const allowed = (real: string) => isUnderAny(real, roots) && !isUnderAny(real, dataDirs);
  const real = await realpath(lexical).catch(() => null);
  const isDirectory =
    real !== null &&
    allowed(real) &&
    (await stat(real).then(
      (s) => s.isDirectory(),
      () => false,
    ));
  const gitDir = isDirectory ? await containedGitDir(real, allowed) : null;
  if (!gitDir) throw new AppError('REPO_IMPORT_FAILED', `No git repository to import at ${importPath}`);
  return gitDir;
}

/** True for a git remote URL that is a path on this machine rather than a network address. */
export function isLocalRemote(url: string): boolean {
  return path.isAbsolute(url) || /^file:/i.test(url) || url.startsWith('.') || /^[a-z]:[\\/]/i.test(url);
}

/** `user@host:path`; neither part may start with "-" (it would reach ssh as an option). */
const SCP_LIKE = /^\w[\w.-]*@(\w[\w.-]*|\[[0-9a-f:.]+\]):[^\s]+$/i;

/**
 * Checks a repository URL a user typed and returns how to clone it: the URL to hand git and the
 * `-c` settings that pin an http(s) host to the address that was checked (git then connects
 * there and nowhere else, so a DNS answer that changes after the check is not used). ssh hosts are
 * checked but cannot be pinned; git://, file:// and other transports are refused.
 */
export async function checkRemoteUrl(
  repoUrl: string,
  network: NetworkPolicy,
): Promise<{ url: string; config: string[] }> {
  const invalid = () =>
    new AppError('VALIDATION_ERROR', 'repoUrl must be an http(s) or ssh URL', {
      fields: { repoUrl: ['Must be an http(s)://, ssh:// or user@host:path URL'] },
    });
  if (/\s/.test(repoUrl)) throw invalid();
  const scp = SCP_LIKE.exec(repoUrl);
  if (scp?.[1]) {
    await checkHost(scp[1], network);
    return { url: repoUrl, config: [] };
  }
  let url: URL;
  try {
    url = new URL(repoUrl);
  } catch {
    throw invalid();
  }
  if (!['http:', 'https:', 'ssh:'].includes(url.protocol) || !url.hostname) throw invalid();
  const addresses = await checkHost(url.hostname, network);
  if (url.protocol === 'ssh:') return { url: repoUrl, config: [] };
  const host = url.hostname;
  const first = addresses[0];
  if (isIP(host.replace(/^\[|\]$/g, '')) || !first) return { url: url.href, config: [] };
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const address = first.family === 6 ? `[${first.address}]` : first.address;
  return { url: url.href, config: [`http.curloptResolve=${host}:${port}:${address}`] };
}

async function checkHost(host: string, network: NetworkPolicy) {
  try {
    return await resolveAllowed(network, host);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('REPO_IMPORT_FAILED', `Could not clone: the host ${host} could not be resolved`);
  }
}

/**
 * A short, fixed description of why a clone failed, from git's stderr: never the remote's own
 * words (its sideband messages and bodies stay out of the answer), at most an HTTP status.
 */
export function describeCloneFailure(stderr: string, timedOut: boolean): string {
  if (timedOut) return 'the clone took too long';
  const status = /returned error: (\d{3})/.exec(stderr)?.[1];
  if (/terminal prompts disabled|Authentication failed|could not read (Username|Password)/i.test(stderr))
    return 'the repository asks for credentials (only public repositories can be imported)';
  if (/Permission denied \(publickey|Host key verification failed/i.test(stderr))
    return 'the ssh server refused the connection (no credentials are sent)';
  if (/redirect/i.test(stderr)) return 'the server answered with a redirect, which is not followed';
  if (status === '404' || /not found|does not appear to be a git repository/i.test(stderr))
    return 'no repository at this URL';
  if (status) return `the server answered HTTP ${status}`;
  if (/Could not resolve host|Name or service not known/i.test(stderr))
    return 'the host could not be resolved';
  if (/Connection refused|Failed to connect|Connection timed out|Couldn't connect/i.test(stderr))
    return 'the connection failed';
  if (/transport '.*' not allowed/i.test(stderr)) return 'this kind of URL is not supported';
  return 'git clone failed';
}

function isUnderAny(target: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => {
    const rel = path.relative(dir, target);
    return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
  });
}

async function realOrSelf(dir: string): Promise<string> {
  return realpath(dir).catch(() => path.resolve(dir));
}
