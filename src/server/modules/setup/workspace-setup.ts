import { readdir } from 'node:fs/promises';
import type { Logger } from '@/server/lib/logger.js';
import { type CheckSandbox, runCheck } from '../checks/check-runner.js';
import type { PrepareWorkspace } from '../services/service-manager.js';
import type { DepCache } from './dep-cache.js';

/**
 * The project's setup in its own checkout (the workspace where services run on the default
 * branch), before a service starts there: when the setup command or the lockfiles changed since it
 * last ran there (an approval or a push moved the branch), it runs again — from the dependency
 * cache when the checkout has none of the entry's paths yet, else the command itself (an install
 * over the old one, as `npm ci` does) — its output in the service's log. A run's worktree is set up
 * by its run before its first step.
 */
export function createWorkspacePreparer(deps: {
  sandbox: CheckSandbox;
  depCache: DepCache;
  logger: Pick<Logger, 'warn'>;
  now: () => number;
}): PrepareWorkspace {
  const { depCache } = deps;
  return async (workspace, write, signal) => {
    const setup = workspace.setup;
    if (!setup || workspace.kind !== 'project' || !workspace.projectId) return;
    const projectId = workspace.projectId;
    const key = await depCache.keyOf(workspace.dir, setup.command);
    const marker = `${setup.command}\n${key ?? 'no lockfile'}`;
    if ((await depCache.preparedFor(workspace.id)) === marker) return;
    const work = async () => {
      if (key) {
        const hit = await depCache.restore(projectId, key, workspace.dir).catch(() => null);
        if (hit) {
          write('stdout', `[autocoder] Setup: restored ${hit.paths.join(', ')} from the dependency cache.\n`);
          return;
        }
      }
      write('stdout', `[autocoder] Setup: ${setup.command}\n`);
      const before = new Set(await readTop(workspace.dir));
      const packages = await depCache.packageCache(projectId);
      const result = await runCheck({
        sandbox: deps.sandbox,
        runId: workspace.id,
        worktree: workspace.dir,
        check: {
          command: setup.command,
          timeoutSeconds: setup.timeoutSeconds,
          allowedHosts: workspace.allowedHosts ?? null,
        },
        signal,
        readOnlyPaths: workspace.readOnlyPaths,
        writablePaths: [packages.dir],
        env: packages.env,
        now: deps.now,
        emit: (event) => {
          if (event.type === 'check-log') write(event.data.stream, event.data.chunk);
        },
      });
      if (!result.passed) {
        const how = result.timedOut
          ? `was stopped at its time limit (${setup.timeoutSeconds} s)`
          : `failed with exit code ${result.exitCode ?? 'none'}`;
        throw new Error(`${setup.command} ${how}`);
      }
      const made = (await readTop(workspace.dir)).filter((name) => !before.has(name) && name !== '.git');
      if (key && made.length > 0) {
        await depCache
          .save(projectId, key, workspace.dir, setup.command, made)
          .catch((error: unknown) => deps.logger.warn('dependency cache: saving failed', { error }));
      }
    };
    await (key ? depCache.once(projectId, key, work) : work());
    await depCache.markPrepared(workspace.id, marker);
  };
}

async function readTop(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name !== '.git');
}
