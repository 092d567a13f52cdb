// The agents of the coordination bench (bench/coordination.ts): each with its own token, over REST
// (node:http, keep-alive) or MCP (the official SDK's client, streamable HTTP), in closed loop.
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CheckStatusResponse, PostStatusResponse } from '../src/contracts/coordination.js';
import {
  CALLS,
  type Call,
  type CoordinationConfig,
  filesOf,
  type Transport,
  type TransportResult,
} from './coordination-config.js';
import { firstLine, processCpuMs } from './lib/common.js';
import { httpRequest } from './lib/http.js';
import { type LatencySummary, round, summarize } from './lib/stats.js';

/** Latencies by call, outcomes and errors, gathered by the agents of one transport. */
export class Recorder {
  readonly samples = new Map<Call, number[]>(CALLS.map((call) => [call, []]));
  readonly outcomes: Record<string, number> = {};
  readonly errorKinds: Record<string, number> = {};
  errors = 0;

  async time<T>(call: Call, send: () => Promise<T>, outcome: (answer: T) => string): Promise<T | null> {
    const started = performance.now();
    try {
      const answer = await send();
      this.samples.get(call)?.push(performance.now() - started);
      const said = `${call.replace('post_status ', '')} ${outcome(answer)}`;
      this.outcomes[said] = (this.outcomes[said] ?? 0) + 1;
      return answer;
    } catch (error) {
      this.errors += 1;
      // undici says only "fetch failed": its cause says why (a reset, a timeout…).
      const cause = error instanceof Error && error.cause ? ` (${firstLine(error.cause).slice(0, 80)})` : '';
      const kind = `${call}: ${firstLine(error).slice(0, 120)}${cause}`;
      this.errorKinds[kind] = (this.errorKinds[kind] ?? 0) + 1;
      return null;
    }
  }
}

/** One agent's two calls, whatever the transport. */
export interface AgentCalls {
  check(body: Record<string, unknown>): Promise<CheckStatusResponse>;
  post(body: Record<string, unknown>): Promise<PostStatusResponse>;
  close(): Promise<void>;
}

export function restAgent(agent: http.Agent, port: number, token: string): AgentCalls {
  const call = async <T>(route: string, body: Record<string, unknown>) => {
    const res = await httpRequest(agent, port, 'POST', route, {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    return JSON.parse(res.body.toString('utf8')) as T;
  };
  return {
    check: (body) => call<CheckStatusResponse>('/api/check_status', body),
    post: (body) => call<PostStatusResponse>('/api/post_status', body),
    close: async () => {},
  };
}

export async function mcpAgent(port: number, token: string, name: string): Promise<AgentCalls> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const call = async <T>(tool: string, body: Record<string, unknown>) => {
    const result = await client.callTool({ name: tool, arguments: body });
    if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content).slice(0, 200)}`);
    return result.structuredContent as T;
  };
  return {
    check: (body) => call<CheckStatusResponse>('check_status', body),
    post: (body) => call<PostStatusResponse>('post_status', body),
    close: () => client.close(),
  };
}

export interface Workload {
  repoUrl: string;
  head: string;
  config: CoordinationConfig;
}

/** One cycle of agent `i`: look, take (or be told to wait), release with the head it "pushed". */
async function cycle(agent: AgentCalls, i: number, work: Workload, recorder: Recorder) {
  const files = filesOf(work.config, i);
  const base = { repo_url: work.repoUrl, branch: 'main', file_paths: files, agent_head: work.head };
  await recorder.time(
    'check_status',
    () => agent.check(base),
    (answer) => answer.status,
  );
  await recorder.time(
    'post_status WRITING',
    () =>
      agent.post({
        ...base,
        status: 'WRITING',
        message: `Agent ${i} edits its module and the shared helper.`,
      }),
    (answer) => answer.orchestration.action,
  );
  await recorder.time(
    'post_status OPEN',
    () => agent.post({ ...base, status: 'OPEN', message: `Agent ${i} pushed.`, new_repo_head: work.head }),
    (answer) => answer.orchestration.action,
  );
}

/** Every agent runs `config.cycles` timed cycles at once (closed loop), after one untimed. */
export async function runTransport(
  transport: Transport,
  agents: AgentCalls[],
  work: Workload,
  serverPid: number,
): Promise<TransportResult> {
  await Promise.all(agents.map((agent, i) => cycle(agent, i, work, new Recorder())));
  const recorder = new Recorder();
  const cpuBefore = processCpuMs(serverPid);
  const benchCpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + work.config.timeCapMs;
  let cycles = 0;
  let capped = false;
  await Promise.all(
    agents.map(async (agent, i) => {
      for (let c = 0; c < work.config.cycles; c++) {
        if (performance.now() > deadline) {
          capped = true;
          return;
        }
        await cycle(agent, i, work, recorder);
        cycles += 1;
      }
    }),
  );
  const durationMs = performance.now() - started;
  const cpuAfter = processCpuMs(serverPid);
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const calls = Object.fromEntries(
    CALLS.map((call) => [call, summarize(recorder.samples.get(call) ?? [])]),
  ) as Record<Call, LatencySummary>;
  const everything = CALLS.flatMap((call) => recorder.samples.get(call) ?? []);
  return {
    transport,
    cycles,
    durationMs: round(durationMs, 0),
    callsPerSecond: round(everything.length / (durationMs / 1000), 0),
    calls,
    all: summarize(everything),
    outcomes: recorder.outcomes,
    errors: recorder.errors,
    errorKinds: recorder.errorKinds,
    capped,
    serverCpuPercent:
      cpuBefore === null || cpuAfter === null ? null : round(((cpuAfter - cpuBefore) / durationMs) * 100, 0),
    serverCpuMsPerCall:
      cpuBefore === null || cpuAfter === null || everything.length === 0
        ? null
        : round((cpuAfter - cpuBefore) / everything.length, 3),
    benchCpuMsPerCall:
      everything.length === 0 ? null : round((benchCpu.user + benchCpu.system) / 1000 / everything.length, 3),
  };
}
