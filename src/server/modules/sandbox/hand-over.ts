import { chown, readdir } from 'node:fs/promises';
import path from 'node:path';
import { inheritedPaths } from '@/server/env.js';
import { runCommand } from '@/server/lib/spawner.js';

/** How long handing a tree over may take (a worktree with a large node_modules). */
const HAND_OVER_TIMEOUT_MS = 120_000;

/**
 * Gives a tree to the sandbox's uid before a command runs in it, when the server is root: the
 * command runs as that unprivileged uid and must be able to write the files the server's git
 * checked out. The tree's own `.git` stays the server's (it is mounted read-only inside anyway).
 *
 * `chown -R -h` (coreutils) walks with directory descriptors and never follows a symbolic link,
 * neither on the command line nor below, so a link planted in the tree (by a service running in
 * it) changes the link itself, never the file it points to.
 */
export async function handOver(root: string, owner: { uid: number; gid: number }): Promise<void> {
  await chown(root, owner.uid, owner.gid);
  const entries = (await readdir(root)).filter((name) => name !== '.git');
  if (entries.length === 0) return;
  const result = await runCommand({
    command: 'chown',
    args: ['-R', '-h', `${owner.uid}:${owner.gid}`, '--', ...entries.map((name) => path.join(root, name))],
    cwd: root,
    env: { PATH: inheritedPaths().path, LANG: 'C' },
    timeoutMs: HAND_OVER_TIMEOUT_MS,
    maxOutputBytes: 64 * 1024,
  });
  // A file removed while the walk ran (a service cleaning up) is no reason to refuse the step.
  const failures = result.stderr
    .split('\n')
    .filter((line) => line && !line.includes('No such file or directory'));
  if (result.code !== 0 && failures.length > 0) {
    throw new Error(`could not hand the worktree to the sandbox: ${failures.slice(-1)[0]}`);
  }
}
