// The engines part's figures: a run's coder steps from the events its SSE client received, matched
// with the engine's processes seen in /proc, and each engine's percentiles.
import type { EngineSession } from './engines-procs.js';
import { type LatencySummary, round, summarize } from './lib/stats.js';

export const ALL_ENGINES = ['autocoder', 'claude-code', 'codex'] as const;
export type BenchEngine = (typeof ALL_ENGINES)[number];
export type ExternalBenchEngine = Exclude<BenchEngine, 'autocoder'>;

/** An event as the bench's SSE client got it. */
export interface Received {
  type: string;
  data: Record<string, unknown>;
  /** Date.now() when the chunk holding it was read from the socket. */
  receivedAt: number;
}

/** One coder step: from its `phase-change` into coding (or fixing) to the next `phase-change`. */
export interface StepRecord {
  phase: string;
  /** "2/3" for a subtask. */
  subtask: string | null;
  /** The phase-change's data.timestamp → the first coder timeline event received (agent-log, tool call or result). */
  firstEventMs: number | null;
  firstEventType: string | null;
  /** The phase-change's data.timestamp → the first coder agent-tool-call received. */
  firstToolCallMs: number | null;
  /** The phase-change's data.timestamp → the next phase-change's (or pipeline-complete's) data.timestamp. */
  wallMs: number | null;
  /** The coder call's durationMs as the run records it (its `usage` event): engine.run() from start to return. */
  callMs: number | null;
  toolCalls: number | null;
  /** The engine's sandbox from /proc: its first process's start → none left (external engines). */
  engineMs: number | null;
  /** Step start → the engine's first process started. */
  beforeEngineMs: number | null;
  /** The engine's processes gone → the next phase-change. */
  afterEngineMs: number | null;
  /** The engine's first process started → the step's first event received. */
  spawnToFirstEventMs: number | null;
}

export interface RunRecord {
  engine: BenchEngine;
  round: number;
  taskId: string;
  /** passed, failed, cancelled, paused, timeout, or the start's refusal. */
  outcome: string;
  /** start-pipeline sent → pipeline-complete received. */
  wallMs: number | null;
  steps: StepRecord[];
  error?: string;
}

export interface CancelRecord {
  engine: ExternalBenchEngine;
  outcome: 'measured' | 'failed';
  reason?: string;
  /** How long the step had run when Cancel was sent (from its phase-change's timestamp). */
  cancelledAfterMs?: number;
  /** POST /api/pipeline/:taskId/cancel: sent → answer read. */
  requestMs?: number;
  /** Cancel sent → the `phase-change` to cancelled received over SSE. */
  toCancelledEventMs?: number | null;
  /** Cancel sent → no process naming the engine's binary left (pidsRunning), polled every 5 ms. */
  toNoEngineProcessMs?: number | null;
  /** Cancel sent → none of the sandbox's processes at Cancel (bwrap, the engine, its shell, the sleep) left. */
  toNoSandboxProcessMs?: number | null;
  /** Those processes' command lines, cut. */
  treeAtCancel?: string[];
  /** The run's status after the cancel. */
  runStatus?: string;
}

export interface EngineFigures {
  engine: BenchEngine;
  status: 'measured' | 'skipped';
  reason?: string;
  /** As GET /api/engines reports it (Claude Code: the agent SDK's version). */
  version?: string;
  /** The binary's own `--version` (external engines). */
  cliVersion?: string;
  runs: number;
  outcomes: Record<string, number>;
  steps: number;
  firstEventMs?: LatencySummary;
  firstToolCallMs?: LatencySummary;
  /** Event → browser, coder timeline events: all, tool calls and results, text chunks. */
  delivery?: { all: LatencySummary; tools: LatencySummary; text: LatencySummary };
  stepWallMs?: LatencySummary;
  callMs?: LatencySummary;
  toolCallsPerStep?: LatencySummary;
  runWallMs?: LatencySummary;
  engineMs?: LatencySummary;
  beforeEngineMs?: LatencySummary;
  afterEngineMs?: LatencySummary;
  spawnToFirstEventMs?: LatencySummary;
  /** Per step, step wall − engine process: AutoCoder's own share of the step. */
  outsideEngineMs?: LatencySummary;
  /** Per step, engine process ÷ step wall. */
  engineShare?: LatencySummary;
  cancel?: CancelRecord;
  /** During this engine's runs: the server's main thread on a CPU and waiting for one, % of the runs' time. */
  server?: { cpuPercent: number; waitedPercent: number };
  /** During this engine's runs: how late the bench's 10 ms timer fired (its event-loop lag, part of every delivery). */
  benchLoopDelayMs?: { p50: number; p99: number; max: number };
}

const CODER_TIMELINE = new Set(['agent-log', 'agent-tool-call', 'agent-tool-result']);

export const isCoderTimeline = (event: Received) =>
  CODER_TIMELINE.has(event.type) && event.data.agent === 'coder' && typeof event.data.timestamp === 'number';
export const stampOf = (event: Received) => event.data.timestamp as number;

/** The steps of one run, from its events in the order received, matched with the engine's sessions. */
export function stepsOf(events: readonly Received[], sessions: readonly EngineSession[]): StepRecord[] {
  const boundaries = events.filter(
    (event) => event.type === 'phase-change' || event.type === 'pipeline-complete',
  );
  const steps: StepRecord[] = [];
  for (const [index, start] of boundaries.entries()) {
    const phase = start.data.phase;
    if (start.type !== 'phase-change' || start.data.status !== 'running') continue;
    if (phase !== 'coding' && phase !== 'fixing') continue;
    const end = boundaries[index + 1];
    const startAt = stampOf(start);
    const endAt = end ? stampOf(end) : null;
    const from = events.indexOf(start) + 1;
    const within = events.slice(from, end ? events.indexOf(end) : undefined);
    const first = within.find(isCoderTimeline);
    const firstCall = within.find(
      (event) => event.type === 'agent-tool-call' && event.data.agent === 'coder',
    );
    const usage = within.find(
      (event) =>
        event.type === 'usage' && (event.data.call as { agent?: string } | undefined)?.agent === 'coder',
    );
    const call = usage?.data.call as { durationMs?: number; toolCalls?: number } | undefined;
    // The engine's sandbox that started in this step (/proc's starttime has 10 ms ticks).
    const session = sessions.find(
      (candidate) =>
        candidate.goneAt !== null &&
        candidate.spawnAt >= startAt - 20 &&
        (endAt === null || candidate.spawnAt < endAt),
    );
    const subtask = start.data.subtask as { index: number; total: number } | undefined;
    const engineMs = session?.goneAt ? session.goneAt - session.spawnAt : null;
    steps.push({
      phase: String(phase),
      subtask: subtask ? `${subtask.index}/${subtask.total}` : null,
      firstEventMs: first ? first.receivedAt - startAt : null,
      firstEventType: first?.type ?? null,
      firstToolCallMs: firstCall ? firstCall.receivedAt - startAt : null,
      wallMs: endAt === null ? null : endAt - startAt,
      callMs: typeof call?.durationMs === 'number' ? call.durationMs : null,
      toolCalls: typeof call?.toolCalls === 'number' ? call.toolCalls : null,
      engineMs,
      beforeEngineMs: session ? Math.max(0, session.spawnAt - startAt) : null,
      afterEngineMs: session?.goneAt && endAt !== null ? endAt - session.goneAt : null,
      spawnToFirstEventMs: session && first ? first.receivedAt - session.spawnAt : null,
    });
  }
  return steps;
}

const summary = (values: (number | null)[]) => {
  const present = values.filter((value): value is number => value !== null && Number.isFinite(value));
  return present.length ? summarize(present) : undefined;
};

/** An engine's figures from its runs and the coder timeline events its clients received. */
export function figuresOf(
  engine: BenchEngine,
  runs: readonly RunRecord[],
  delivered: readonly Received[],
  extra: Pick<EngineFigures, 'version' | 'cliVersion' | 'cancel' | 'server' | 'benchLoopDelayMs'>,
): EngineFigures {
  const mine = runs.filter((run) => run.engine === engine);
  const steps = mine.flatMap((run) => run.steps);
  const latency = (list: readonly Received[]) => list.map((event) => event.receivedAt - stampOf(event));
  const outcomes: Record<string, number> = {};
  for (const run of mine) outcomes[run.outcome] = (outcomes[run.outcome] ?? 0) + 1;
  const of = (pick: (step: StepRecord) => number | null) => summary(steps.map(pick));
  return {
    engine,
    status: 'measured',
    ...extra,
    runs: mine.length,
    outcomes,
    steps: steps.length,
    firstEventMs: of((step) => step.firstEventMs),
    firstToolCallMs: of((step) => step.firstToolCallMs),
    delivery: {
      all: summarize(latency(delivered)),
      tools: summarize(latency(delivered.filter((event) => event.type !== 'agent-log'))),
      text: summarize(latency(delivered.filter((event) => event.type === 'agent-log'))),
    },
    stepWallMs: of((step) => step.wallMs),
    callMs: of((step) => step.callMs),
    toolCallsPerStep: of((step) => step.toolCalls),
    runWallMs: summary(mine.map((run) => run.wallMs)),
    ...(engine === 'autocoder'
      ? {}
      : {
          engineMs: of((step) => step.engineMs),
          beforeEngineMs: of((step) => step.beforeEngineMs),
          afterEngineMs: of((step) => step.afterEngineMs),
          spawnToFirstEventMs: of((step) => step.spawnToFirstEventMs),
          outsideEngineMs: of((step) =>
            step.wallMs !== null && step.engineMs !== null ? step.wallMs - step.engineMs : null,
          ),
          engineShare: of((step) =>
            step.wallMs && step.engineMs !== null ? round(step.engineMs / step.wallMs, 3) : null,
          ),
        }),
  };
}
