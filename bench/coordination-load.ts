// How the coordination bench drives its agents (bench/coordination-agents.ts): in closed loop, every
// agent calling again the moment it is answered (the most the server answers), and at a fixed rate
// (what one call costs when the server is not saturated).
import { performance } from 'node:perf_hooks';
import type { AgentCalls } from './coordination-agents.js';
import {
  CALLS,
  type Call,
  type CoordinationConfig,
  filesOf,
  type LoadResult,
  type PacedResult,
  type Transport,
  type TransportResult,
} from './coordination-config.js';
import { firstLine, processCpuMs } from './lib/common.js';
import { type LatencySummary, round, summarize } from './lib/stats.js';

/** Latencies by call, outcomes and errors, gathered by the agents of one transport. */
export class Recorder {
  readonly samples = new Map<Call, number[]>(CALLS.map((call) => [call, []]));
  readonly outcomes: Record<string, number> = {};
  readonly errorKinds: Record<string, number> = {};
  errors = 0;

  /** Times one call from `since` (by default: now, as it is sent). */
  async time<T>(
    call: Call,
    send: () => Promise<T>,
    outcome: (answer: T) => string,
    since = performance.now(),
  ): Promise<T | null> {
    try {
      const answer = await send();
      this.samples.get(call)?.push(performance.now() - since);
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

  /** What the calls timed over `durationMs` came to; the server's CPU (ms) before and after, when known. */
  result(durationMs: number, cpuBefore: number | null, cpuAfter: number | null): LoadResult {
    const everything = CALLS.flatMap((call) => this.samples.get(call) ?? []);
    return {
      durationMs: round(durationMs, 0),
      callsPerSecond: round(everything.length / (durationMs / 1000), 0),
      calls: Object.fromEntries(
        CALLS.map((call) => [call, summarize(this.samples.get(call) ?? [])]),
      ) as Record<Call, LatencySummary>,
      all: summarize(everything),
      outcomes: this.outcomes,
      errors: this.errors,
      errorKinds: this.errorKinds,
      serverCpuPercent:
        cpuBefore === null || cpuAfter === null
          ? null
          : round(((cpuAfter - cpuBefore) / durationMs) * 100, 0),
    };
  }
}

export interface Workload {
  repoUrl: string;
  head: string;
  config: CoordinationConfig;
}

/** Call `k` of agent `i`'s cycle (check_status, post_status WRITING, post_status OPEN), timed from `since`. */
async function step(
  agent: AgentCalls,
  i: number,
  k: number,
  work: Workload,
  recorder: Recorder,
  since?: number,
): Promise<void> {
  const files = filesOf(work.config, i);
  const base = { repo_url: work.repoUrl, branch: 'main', file_paths: files, agent_head: work.head };
  const call = CALLS[k % CALLS.length] as Call;
  if (call === 'check_status') {
    await recorder.time(
      call,
      () => agent.check(base),
      (answer) => answer.status,
      since,
    );
  } else if (call === 'post_status WRITING') {
    const message = `Agent ${i} edits its module and the shared helper.`;
    await recorder.time(
      call,
      () => agent.post({ ...base, status: 'WRITING', message }),
      (answer) => answer.orchestration.action,
      since,
    );
  } else {
    const open = { ...base, status: 'OPEN', message: `Agent ${i} pushed.`, new_repo_head: work.head };
    await recorder.time(
      call,
      () => agent.post(open),
      (answer) => answer.orchestration.action,
      since,
    );
  }
}

/** One cycle of agent `i`: look, take (or be told to wait), release with the head it "pushed". */
async function cycle(agent: AgentCalls, i: number, work: Workload, recorder: Recorder) {
  for (let k = 0; k < CALLS.length; k++) await step(agent, i, k, work, recorder);
}

/** Every agent runs `config.cycles` timed cycles at once (closed loop), after `config.warmupCycles` untimed. */
export async function runTransport(
  transport: Transport,
  agents: AgentCalls[],
  work: Workload,
  serverPid: number,
): Promise<TransportResult> {
  const warmup = new Recorder();
  await Promise.all(
    agents.map(async (agent, i) => {
      for (let c = 0; c < Math.max(1, work.config.warmupCycles); c++) await cycle(agent, i, work, warmup);
    }),
  );
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
  const load = recorder.result(durationMs, cpuBefore, cpuAfter);
  const calls = load.all.count;
  return {
    transport,
    cycles,
    ...load,
    capped,
    serverCpuMsPerCall:
      cpuBefore === null || cpuAfter === null || calls === 0
        ? null
        : round((cpuAfter - cpuBefore) / calls, 3),
    benchCpuMsPerCall: calls === 0 ? null : round((benchCpu.user + benchCpu.system) / 1000 / calls, 3),
  };
}

/**
 * The same agents at a fixed rate (an open loop): agent `i` sends its `k`-th call at
 * `start + (i / agents + k) × interval`, one call at a time and in cycle order, as an agent paced by
 * its own work would. Each latency counts from the call's due time (or from when it left, if that
 * was earlier), so a call held up behind its agent's previous one, or behind a late timer, counts
 * the wait too (no coordinated omission).
 */
export async function runPaced(
  agents: AgentCalls[],
  work: Workload,
  serverPid: number,
): Promise<PacedResult> {
  const { pacedRate, pacedSeconds } = work.config;
  const intervalMs = (1000 * agents.length) / pacedRate;
  const callsPerAgent = Math.max(CALLS.length, Math.round((pacedSeconds * pacedRate) / agents.length));
  const recorder = new Recorder();
  const cpuBefore = processCpuMs(serverPid);
  const started = performance.now();
  await Promise.all(
    agents.map(async (agent, i) => {
      for (let k = 0; k < callsPerAgent; k++) {
        const due = started + (i / agents.length + k) * intervalMs;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        // A timer may fire up to a millisecond early (it counts from the event loop's cached clock):
        // a call sent before its due time is timed from when it left.
        await step(agent, i, k, work, recorder, Math.min(due, performance.now()));
      }
    }),
  );
  const durationMs = performance.now() - started;
  return { ratePerSecond: pacedRate, ...recorder.result(durationMs, cpuBefore, processCpuMs(serverPid)) };
}
