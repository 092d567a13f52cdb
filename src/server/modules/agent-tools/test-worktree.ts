import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { git } from '@/server/lib/git.js';
import { createToolExecutor, type ToolExecutorOptions } from './tool-executor.js';
import type { ToolResult } from './tool-types.js';

/** The agent-tools tests' ground: a real repository and a run-like worktree of it (`.git` is a file). */
export interface TestWorktree {
  /** Holds the repository, the worktree and an "outside" directory the tools must never reach. */
  root: string;
  worktree: string;
  outside: string;
  write(rel: string, content: string | Buffer): Promise<void>;
  read(rel: string): Promise<Buffer>;
  commit(files: Record<string, string>): Promise<void>;
  cleanup(): Promise<void>;
}

export async function makeWorktree(files: Record<string, string> = {}): Promise<TestWorktree> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), 'autocoder-tools-')));
  const repo = path.join(root, 'repo');
  const worktree = path.join(root, 'worktree');
  const outside = path.join(root, 'outside');
  await mkdir(outside);
  await git(['init', '--quiet', '--initial-branch=main', repo]);
  const write = async (dir: string, rel: string, content: string | Buffer) => {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), content);
  };
  const commitIn = async (dir: string, more: Record<string, string>) => {
    for (const [rel, content] of Object.entries(more)) await write(dir, rel, content);
    await git(['add', '-A'], { cwd: dir });
    await git(['commit', '--quiet', '--no-verify', '--allow-empty', '-m', 'files'], { cwd: dir });
  };
  await commitIn(repo, { 'README.md': '# demo\n', ...files });
  await git(['worktree', 'add', '--quiet', '-b', 'autocoder/test', worktree], { cwd: repo });
  return {
    root,
    worktree,
    outside,
    write: (rel, content) => write(worktree, rel, content),
    read: (rel) => readFile(path.join(worktree, rel)),
    commit: (more) => commitIn(worktree, more),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** An executor over the worktree, and `call`, which fails the test on a thrown error. */
export function executorFor(t: TestWorktree, options: Partial<ToolExecutorOptions> = {}) {
  const executor = createToolExecutor({ worktree: t.worktree, ...options });
  return {
    call: (name: string, input: unknown): Promise<ToolResult> => executor.execute(name, input),
    async ok(name: string, input: unknown) {
      const result = await executor.execute(name, input);
      if (!result.ok) throw new Error(`${name} failed: ${result.error}`);
      return result;
    },
    async error(name: string, input: unknown) {
      const result = await executor.execute(name, input);
      if (result.ok) throw new Error(`${name} succeeded: ${result.output}`);
      return result;
    },
  };
}
