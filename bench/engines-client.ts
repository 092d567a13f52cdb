// The engines part as a browser drives it: which engines run here, a task with its coder engine, its live stream, its run.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EngineInfo } from '../src/contracts/engines.js';
import type { CoderEngineId } from '../src/contracts/projects.js';
import type { Task } from '../src/contracts/tasks.js';
import { findEngineBinary } from '../src/server/modules/engines/engine-catalog.js';
import type { BenchEngine, EngineFigures, ExternalBenchEngine, Received } from './engines-analysis.js';
import type { BenchClient } from './lib/http.js';
import { SseClient, type SseEvent } from './lib/sse-client.js';

/** The signed-in user and the engines' binaries (what /proc is scanned for). */
export interface Ground {
  port: number;
  client: BenchClient;
  binaries: Partial<Record<ExternalBenchEngine, string>>;
}

export const TASK = {
  title: 'Add a health check endpoint',
  description: 'Add GET /health answering {"status":"ok"} with a test. Keep it small; no new dependencies.',
};

export interface Watched {
  events: Received[];
  sse: SseClient;
  /** Resolves with how the run ended, as the stream tells it. */
  ended: Promise<string>;
}

/** The task's stream, as the browser opens it, every event kept with when it was read. */
export function watchTask(ground: Ground, taskId: string): Watched {
  const events: Received[] = [];
  let finish: (outcome: string) => void = () => {};
  const ended = new Promise<string>((resolve) => {
    finish = resolve;
  });
  const sse = new SseClient({
    port: ground.port,
    path: `/api/sse/${taskId}`,
    headers: { cookie: ground.client.cookie },
    onEvent: (event: SseEvent) => {
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(event.data) as Record<string, unknown>;
      } catch {
        return;
      }
      events.push({ type: event.event, data, receivedAt: event.receivedAt });
      if (event.event === 'pipeline-complete') finish(String(data.result ?? 'complete'));
      else if (
        event.event === 'phase-change' &&
        ['paused', 'cancelled', 'failed'].includes(String(data.status))
      )
        finish(String(data.status));
    },
  });
  return { events, sse, ended };
}

/**
 * A task whose coder engine is `engine` (PATCH /api/tasks/:id {coderEngine}), in a new project of
 * its own: a passed run keeps the WRITING locks on its files until it is approved, and the next
 * run in the same project would wait for them (LOCK_WAIT_SECONDS). Every run starts from the
 * same empty repository.
 */
export async function newTask(ground: Ground, engine: BenchEngine, description: string, title: string) {
  const project = await ground.client.json<{ id: string }>(
    'POST',
    '/api/projects',
    { name: `Engines ${++projects}` },
    201,
  );
  const task = await ground.client.json<Task>(
    'POST',
    '/api/tasks',
    { projectId: project.id, title, description, category: 'feature', priority: 'medium' },
    201,
  );
  await ground.client.json('PATCH', `/api/tasks/${task.id}`, { coderEngine: engine as CoderEngineId }, 200);
  return task.id;
}

let projects = 0;

export async function startRun(ground: Ground, taskId: string): Promise<{ status: number; body: string }> {
  const res = await ground.client.request('POST', `/api/tasks/${taskId}/start-pipeline`, {
    provider: 'simulator',
  });
  return { status: res.status, body: res.body.toString('utf8').slice(0, 300) };
}

/** The latest run's status as the server has it. */
export async function runStatus(ground: Ground, taskId: string): Promise<string> {
  const res = await ground.client.request('GET', `/api/pipeline/${taskId}/status`);
  if (res.status !== 200) return 'unknown';
  return String((JSON.parse(res.body.toString('utf8')) as { status?: unknown }).status ?? 'unknown');
}

/**
 * How the run ended: as its stream says, or (asked every 2 s, should the stream never say) its
 * status; past `timeoutMs` it is cancelled and counted as `timeout`.
 */
export async function waitEnd(ground: Ground, taskId: string, watched: Watched, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const outcome = await Promise.race([watched.ended, sleep(2_000, null)]);
    if (outcome !== null) return outcome;
    const status = await runStatus(ground, taskId);
    if (status !== 'running' && status !== 'unknown') {
      const late = await Promise.race([watched.ended, sleep(1_000, null)]);
      return late ?? status;
    }
    if (Date.now() > deadline) {
      await ground.client.request('POST', `/api/pipeline/${taskId}/cancel`);
      return 'timeout';
    }
  }
}

/** The engine's program's own `--version` (our binary, not repository code), as the catalog probes it. */
function cliVersion(program: string): string | undefined {
  try {
    return execFileSync(program, ['--version'], {
      encoding: 'utf8',
      timeout: 30_000,
      env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' },
      stdio: ['ignore', 'pipe', 'ignore'],
    }).match(/\d+\.\d+\.\d+\S*/)?.[0];
  } catch {
    return undefined;
  }
}

/** Which engines run here: the server's list (installed, starts, sandbox) and the binary to scan for. */
export function usableEngines(
  config: { engines: readonly BenchEngine[] },
  listed: readonly EngineInfo[],
  ground: Ground,
) {
  const skipped = new Map<BenchEngine, EngineFigures>();
  const usable: BenchEngine[] = [];
  const versions = new Map<BenchEngine, Pick<EngineFigures, 'version' | 'cliVersion'>>();
  for (const engine of config.engines) {
    const info = listed.find((entry) => entry.id === engine);
    const version = info?.version ? { version: info.version } : {};
    const skip = (reason: string) => {
      skipped.set(engine, { engine, status: 'skipped', reason, ...version, runs: 0, outcomes: {}, steps: 0 });
      console.log(`  ${engine}: skipped — ${reason}`);
    };
    if (!info?.available) {
      skip(info?.reason ?? 'the server does not list it');
      continue;
    }
    if (engine !== 'autocoder') {
      const lookup = findEngineBinary(engine);
      if ('missing' in lookup) {
        skip(lookup.missing);
        continue;
      }
      ground.binaries[engine] = lookup.found.program;
      const cli = cliVersion(lookup.found.program);
      versions.set(engine, { ...version, ...(cli ? { cliVersion: cli } : {}) });
    }
    usable.push(engine);
  }
  return { usable, skipped, versions };
}
