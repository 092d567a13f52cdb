import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git, gitText } from '@/server/lib/git.js';

/** Helpers for the workspace tests: real repositories in temporary directories. */

export interface TempRepo {
  /** A temporary directory holding the repository and anything else the test makes. */
  root: string;
  /** The main checkout, on `main`, with one commit holding README.md. */
  repo: string;
  cleanup(): Promise<void>;
}

export async function makeRepo(): Promise<TempRepo> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'autocoder-ws-')));
  const repo = path.join(root, 'repo');
  await git(['init', '--quiet', '--initial-branch=main', repo]);
  await commitFiles(repo, { 'README.md': '# demo\n' }, 'Initial commit');
  return { root, repo, cleanup: () => rm(root, { recursive: true, force: true }) };
}

/** Writes the files (creating directories) and commits them on the checked-out branch. */
export async function commitFiles(
  dir: string,
  files: Record<string, string>,
  message: string,
): Promise<string> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), content);
  }
  await git(['add', '-A'], { cwd: dir });
  await git(['commit', '--quiet', '--no-verify', '-m', message], { cwd: dir });
  return head(dir);
}

export async function head(dir: string, rev = 'HEAD'): Promise<string> {
  return (await gitText(['rev-parse', rev], { cwd: dir })).trim();
}

export async function status(dir: string): Promise<string> {
  return (await gitText(['status', '--porcelain'], { cwd: dir })).trim();
}
