// The pipeline part's setup: users, their tasks, and the SSE clients that watch each task.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Task } from '../../src/contracts/tasks.js';
import { firstLine } from '../lib/common.js';
import { BenchClient, registerWithProject } from '../lib/http.js';
import { SseClient, type SseEvent } from '../lib/sse-client.js';
import type { PipelineConfig } from './config.js';
import { bump, mapLimit } from './util.js';

/** The server's limit on running pipelines per user: more starts answer 429 TOO_MANY_PIPELINES. */
export const RUNS_PER_USER = 5;
const PASSWORD = 'correct horse battery staple';

export interface ClientState {
  sse: SseClient;
  ids: number[];
  /** Date.now() when this client received pipeline-complete. */
  completeAt: number | null;
}

export interface TaskState {
  id: string;
  owner: BenchClient;
  clients: ClientState[];
  /** Date.now() when its start-pipeline request was sent. */
  startSentAt: number;
  startStatus: number;
  /** Date.now() when the first client saw the run end (pipeline-complete, or a paused/cancelled phase). */
  endedAt: number | null;
  /** How it ended, as the stream (or the status fallback) told. */
  endStatus: string | null;
}

/** What every client received, gathered as it arrives. Plain arrays: this runs for every event. */
export interface DeliveryLog {
  latencies: number[];
  byType: Map<string, number[]>;
  streamErrorKinds: Record<string, number>;
}

/** One user per RUNS_PER_USER runs, and one task per run in its user's default project. */
export async function createUsersAndTasks(agent: http.Agent, port: number, runs: number) {
  const userCount = Math.ceil(runs / RUNS_PER_USER);
  const tag = randomBytes(3).toString('hex');
  const users = await Promise.all(
    Array.from({ length: userCount }, async (_, index) => {
      const client = new BenchClient(agent, port);
      const email = `bench-pipeline-${tag}-${index}@example.com`;
      const projectId = await registerWithProject(client, email, PASSWORD);
      return { client, projectId };
    }),
  );
  const created = await mapLimit(
    Array.from({ length: runs }, (_, index) => index),
    20,
    async (index) => {
      const user = users[Math.floor(index / RUNS_PER_USER)];
      if (!user) throw new Error(`no user for run ${index}`);
      const task = await user.client.json<Task>(
        'POST',
        '/api/tasks',
        {
          projectId: user.projectId,
          title: `Add a health check endpoint ${index + 1}`,
          description:
            'Add GET /health answering {"status":"ok"} with a test. Keep it small; no new dependencies.',
          category: 'feature',
          priority: 'medium',
        },
        201,
      );
      return { id: task.id, owner: user.client };
    },
  );
  return { userCount, created };
}

/** `clientsPerTask` SSE clients on each task's stream, as its owner, recording into `log`. */
export function watchTasks(
  created: readonly { id: string; owner: BenchClient }[],
  port: number,
  clientsPerTask: number,
  log: DeliveryLog,
): TaskState[] {
  return created.map(({ id, owner }) => {
    const state: TaskState = {
      id,
      owner,
      clients: [],
      startSentAt: 0,
      startStatus: 0,
      endedAt: null,
      endStatus: null,
    };
    for (let n = 0; n < clientsPerTask; n++) {
      const client: ClientState = {
        ids: [],
        completeAt: null,
        sse: new SseClient({
          port,
          path: `/api/sse/${id}`,
          headers: { cookie: owner.cookie },
          // Called only once the response arrives, after `client` is assigned.
          onEvent: (event: SseEvent) => recordEvent(log, state, client, event),
        }),
      };
      state.clients.push(client);
    }
    return state;
  });
}

function recordEvent(log: DeliveryLog, task: TaskState, client: ClientState, event: SseEvent) {
  if (event.id !== null) client.ids.push(Number(event.id));
  let data: { timestamp?: unknown; status?: unknown; result?: unknown };
  try {
    data = JSON.parse(event.data) as typeof data;
  } catch {
    bump(log.streamErrorKinds, `unparsable data in a ${event.event} event`);
    return;
  }
  if (typeof data.timestamp === 'number') {
    const latency = event.receivedAt - data.timestamp;
    log.latencies.push(latency);
    let list = log.byType.get(event.event);
    if (!list) {
      list = [];
      log.byType.set(event.event, list);
    }
    list.push(latency);
  }
  if (event.event === 'pipeline-complete') {
    client.completeAt = event.receivedAt;
    if (task.endedAt === null) {
      task.endedAt = event.receivedAt;
      task.endStatus = typeof data.result === 'string' ? data.result : 'complete';
    }
  } else if (
    event.event === 'phase-change' &&
    (data.status === 'paused' || data.status === 'cancelled') &&
    task.endedAt === null
  ) {
    // No pipeline-complete follows a pause or a cancellation.
    task.endedAt = event.receivedAt;
    task.endStatus = data.status;
  }
}

/** Waits until every client's stream is open; throws when one is refused or time runs out. */
export async function connectAll(clients: readonly ClientState[], config: PipelineConfig): Promise<void> {
  const opened = await Promise.race([
    Promise.allSettled(clients.map((client) => client.sse.opened)),
    sleep(config.connectTimeoutMs ?? 30_000, null, { ref: false }),
  ]);
  if (opened === null)
    throw new Error(
      `the SSE clients did not all connect within ${(config.connectTimeoutMs ?? 30_000) / 1000} s`,
    );
  const refused = opened.filter((outcome) => outcome.status === 'rejected');
  if (refused.length > 0) {
    throw new Error(
      `${refused.length} of ${clients.length} SSE clients could not connect: ${firstLine(
        (refused[0] as PromiseRejectedResult).reason,
      )}`,
    );
  }
}
