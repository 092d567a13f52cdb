import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * An agent's git in `work` (its HOME): no user or system config, never a prompt; and a commit of
 * files pushed to the project's main, answering the new head.
 */
export function agentGit(work: () => string) {
  const git = (args: string[], cwd = work()) =>
    run(
      'git',
      ['-c', 'credential.helper=', '-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', ...args],
      {
        cwd,
        env: { PATH: process.env.PATH, HOME: work(), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
      },
    );

  async function commitFiles(clone: string, files: Record<string, string>, message: string) {
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(clone, file)), { recursive: true });
      await writeFile(path.join(clone, file), content);
    }
    await git(['add', '-A'], clone);
    await git(['commit', '-qm', message], clone);
    await git(['push', '--quiet', 'origin', 'HEAD:main'], clone);
    return (await git(['rev-parse', 'HEAD'], clone)).stdout.trim();
  }

  return { git, commitFiles };
}
