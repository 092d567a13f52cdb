// Scenarios compared as ratios are run in interleaved rounds and merged, so that a change of the
// machine's load during the run falls on all of them alike. Each round starts one scenario later
// (A B C, B C A, C A B, …): the one that follows a given scenario is not always the same. (With the
// order fixed, the services part's proxy right after direct got 20 points less of direct's
// throughput than the other, whichever of the two it was.)
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { CLOCK_TICKS_PER_SECOND } from './common.js';
import { runScenario, type ScenarioResult } from './load.js';
import { type LatencySummary, round, summarize } from './stats.js';

/** The turns' indexes in round `round`'s order: the list rotated by the round's number. */
export const roundOrder = (count: number, round: number): number[] =>
  Array.from({ length: count }, (_, offset) => (round + offset) % count);

/** CPU of a process and all its descendants (a sandboxed service under bwrap), in ms. */
export function treeCpuMs(pid: number): number | null {
  const stats = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      stats.set(Number(entry), {
        ppid: Number(fields[1]),
        ticks: Number(fields[11]) + Number(fields[12]),
      });
    } catch {
      // gone meanwhile
    }
  }
  if (!stats.has(pid)) return null;
  let ticks = 0;
  const pending = [pid];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    ticks += stats.get(next)?.ticks ?? 0;
    for (const [child, info] of stats) if (info.ppid === next) pending.push(child);
  }
  return (ticks * 1000) / CLOCK_TICKS_PER_SECOND;
}

/** One scenario's rounds as one: samples pooled, throughput and CPU over their summed time. */
export function mergeRounds(rounds: readonly ScenarioResult[], samples: readonly number[]): ScenarioResult {
  const first = rounds[0];
  if (!first) throw new Error('no rounds to merge');
  const sum = (pick: (s: ScenarioResult) => number) => rounds.reduce((total, s) => total + pick(s), 0);
  const durationMs = sum((s) => s.durationMs);
  const ok = sum((s) => s.ok);
  const errorKinds: Record<string, number> = {};
  for (const s of rounds)
    for (const [kind, count] of Object.entries(s.errorKinds))
      errorKinds[kind] = (errorKinds[kind] ?? 0) + count;
  const cpu = (pick: (s: ScenarioResult) => number | null) =>
    rounds.some((s) => pick(s) === null)
      ? null
      : round((sum((s) => ((pick(s) ?? 0) * s.durationMs) / 100) / durationMs) * 100, 0);
  return {
    ...first,
    requested: sum((s) => s.requested),
    ok,
    rateLimited: sum((s) => s.rateLimited),
    errors: sum((s) => s.errors),
    errorKinds,
    capped: rounds.some((s) => s.capped),
    durationMs: round(durationMs),
    throughput: round(ok / (durationMs / 1000), 1),
    latency: summarize(samples),
    serverCpuPercent: cpu((s) => s.serverCpuPercent),
    benchCpuPercent: cpu((s) => s.benchCpuPercent) ?? 0,
  };
}

/** CPU per successful request in µs, from a share of one core over the scenario's time (NaN: unknown). */
export function cpuUsPerRequest(cpuPercent: number | null, s: ScenarioResult): number {
  if (cpuPercent === null || s.ok === 0) return Number.NaN;
  return round(((cpuPercent / 100) * s.durationMs * 1000) / s.ok, 0);
}

/** A scenario of an interleaved run: one request, answering its status. */
export interface Turn {
  name: string;
  label: string;
  send: () => Promise<number>;
  /** The process whose CPU this turn reports as the server's, when not the options' `serverPid`. */
  serverPid?: number | undefined;
}

export interface InterleaveOptions {
  rounds: number;
  /** Timed requests per scenario, over all rounds. */
  requests: number;
  clients: number;
  timeCapMs: number;
  /** The server whose CPU each scenario reports. */
  serverPid: number | undefined;
  /** Another process (with its children) whose CPU is counted per scenario, warm-ups included. */
  watchPid: number;
}

/**
 * Runs the scenarios in turn, `rounds` times, each with its share of the requests, and merges
 * each one's rounds. The first round warms up fully: twice a round's requests untimed before its
 * timed ones (with 20 per client only, its timed requests were still cold — direct's at a quarter
 * of its later rate — and, merged, that raised the proxies' share of direct by several points);
 * later rounds warm up briefly.
 */
export async function runInterleaved(
  turns: readonly Turn[],
  options: InterleaveOptions,
): Promise<{ scenarios: ScenarioResult[]; watchedCpuMs: number[]; warmups: number }> {
  const rounds = turns.map(() => [] as ScenarioResult[]);
  const samples = turns.map(() => [] as number[]);
  const watchedCpuMs = turns.map(() => 0);
  const perRound = Math.max(1, Math.round(options.requests / options.rounds));
  for (let turn = 0; turn < options.rounds; turn += 1) {
    for (const index of roundOrder(turns.length, turn)) {
      const { name, label, send, serverPid } = turns[index] as Turn;
      const warmup = turn === 0 ? Math.max(options.clients * 20, perRound * 2) : options.clients * 2;
      const before = treeCpuMs(options.watchPid);
      const done = await runScenario({
        name,
        label,
        requests: perRound,
        concurrency: options.clients,
        timeCapMs: options.timeCapMs,
        warmup,
        expect: 200,
        serverPid: serverPid ?? options.serverPid,
        send: async (_worker, request) => {
          const t0 = performance.now();
          const status = await send();
          if (request >= warmup && status === 200) samples[index]?.push(performance.now() - t0);
          return status;
        },
      });
      const after = treeCpuMs(options.watchPid);
      if (before !== null && after !== null)
        watchedCpuMs[index] = (watchedCpuMs[index] ?? 0) + after - before;
      rounds[index]?.push(done);
    }
  }
  return {
    scenarios: turns.map((_, index) => mergeRounds(rounds[index] ?? [], samples[index] ?? [])),
    watchedCpuMs,
    warmups: Math.max(options.clients * 20, perRound * 2) + (options.rounds - 1) * options.clients * 2,
  };
}

/**
 * Latency at a fixed rate well below capacity (an open loop: requests leave on a schedule, not
 * when the previous one is answered), so that it shows what a request costs, not how long it
 * queued behind the others as in a saturating closed loop.
 */
async function pacedLatencies(
  send: () => Promise<number>,
  options: { ratePerSecond: number; requests: number },
): Promise<{ samples: number[]; errors: number }> {
  const samples: number[] = [];
  let errors = 0;
  const intervalMs = 1000 / options.ratePerSecond;
  const started = performance.now();
  const pending: Promise<void>[] = [];
  for (let index = 0; index < options.requests; index += 1) {
    const due = started + index * intervalMs;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const t0 = performance.now();
    pending.push(
      send().then(
        (status) => {
          if (status === 200) samples.push(performance.now() - t0);
          else errors += 1;
        },
        () => {
          errors += 1;
        },
      ),
    );
  }
  await Promise.all(pending);
  return { samples, errors };
}

/** Each turn at a fixed rate, in four interleaved rounds (rotated); the pooled latencies per turn. */
export async function runPaced(
  turns: readonly Turn[],
  options: { ratePerSecond: number; requests: number },
): Promise<{ latencies: LatencySummary[]; errors: number }> {
  const samples = turns.map(() => [] as number[]);
  let errors = 0;
  for (let round = 0; round < 4; round += 1) {
    for (const index of roundOrder(turns.length, round)) {
      const { send } = turns[index] as Turn;
      const done = await pacedLatencies(send, {
        ratePerSecond: options.ratePerSecond,
        requests: Math.ceil(options.requests / 4),
      });
      samples[index]?.push(...done.samples);
      errors += done.errors;
    }
  }
  return { latencies: samples.map((pooled) => summarize(pooled)), errors };
}
