// The agent-tools part of `npm run bench` (issue 24): the tool-using coder on a generated
// repository of about 3,000 files with one 6,000-line TypeScript file (bench/agent-tools-repo.ts).
// Three tasks (bench/agent-tools-tasks.ts) — change one function inside the big file, add a module
// that imports two others, fix a failing check — are played by scripted trajectories on the
// stand-in endpoint (src/server/modules/agent-tools/testing/scripted-endpoint.ts), through the
// real Anthropic and OpenAI SDKs and `createAutocoderEngine().run(step)` on a worktree, each run
// on a worktree reset to its commit. Per task and protocol: the stand-in's token counts, tool
// calls, turns, and AutoCoder's own time per tool call (between the step's onToolCall and
// onToolResult: the executor only, not the model); then each tool measured directly
// (bench/agent-tools-micro.ts). Aims: read, edit and list under 5 ms, search under 50 ms.
import { rm } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { createAutocoderEngine } from '../src/server/modules/agent-tools/autocoder-engine.js';
import type { CoderStep } from '../src/server/modules/agent-tools/coder-engine.js';
import { listingCache } from '../src/server/modules/agent-tools/git-tools-listing.js';
import {
  type ScriptedRequest,
  type ScriptedTurn,
  startScriptedEndpoint,
} from '../src/server/modules/agent-tools/testing/scripted-endpoint.js';
import { createAnthropicProvider } from '../src/server/modules/llm/anthropic.js';
import { createOpenAiProvider } from '../src/server/modules/llm/openai-compatible.js';
import type { LlmProvider } from '../src/server/modules/llm/provider.js';
import { type MicroRow, microMeasure, type Percentiles, percentiles } from './agent-tools-micro.js';
import { BIG_FILE_LINES, makeBenchRepository, resetWorktree } from './agent-tools-repo.js';
import { type BenchTask, runCheck, TASKS, type TaskId } from './agent-tools-tasks.js';
import { intEnv } from './lib/common.js';
import { round } from './lib/stats.js';

export interface AgentToolsConfig {
  /** Timed runs of each task on each protocol (after one warm-up run). */
  runs: number;
  /** Timed calls per row of the direct measure. */
  calls: number;
}

export function agentToolsConfig(): AgentToolsConfig {
  return { runs: intEnv('BENCH_AGENT_TOOLS_RUNS', 20), calls: intEnv('BENCH_AGENT_TOOLS_CALLS', 200) };
}

export const PROTOCOLS = ['anthropic', 'openai'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export interface TaskRow {
  task: TaskId;
  title: string;
  protocol: Protocol;
  runs: number;
  /** Runs whose worktree was exactly what the task intended. */
  verified: number;
  /** What went wrong in the other runs (at most five). */
  problems: string[];
  /** Per run, as the stand-in counts them (fixed per turn: 100 in, 40 of them cached, 20 out). */
  tokens: { sent: number; received: number; cacheRead: number; cacheWrite: number };
  toolCalls: number;
  turns: number;
  /** What AutoCoder sent the endpoint per run (request bodies, KB): the conversation growing. */
  requestKb: number;
  /** The whole step (SDK, stand-in and tools), per run. */
  stepMs: Percentiles;
  /** AutoCoder's own time per tool call, by tool. */
  tools: Record<string, Percentiles>;
}

export interface AgentToolsResult {
  status: 'ok';
  repository: { files: number; bytes: number; bigFileLines: number };
  tasks: TaskRow[];
  /** The tasks' tool calls by tool, every task and protocol together. */
  toolsInTasks: Record<string, Percentiles>;
  micro: MicroRow[];
  /** The listing cache over the whole part: listings from it, from git, and those it kept. */
  listingCache: { hits: number; fills: number; kept: number };
}

interface RunOutcome {
  problem: string | null;
  sent: number;
  received: number;
  cacheRead: number;
  cacheWrite: number;
  toolCalls: number;
  turns: number;
  requestBytes: number;
  stepMs: number;
  tools: Record<string, number[]>;
}

export async function benchAgentTools(config: AgentToolsConfig): Promise<AgentToolsResult> {
  const repository = await makeBenchRepository();
  console.log(
    `  a repository of ${repository.files.toLocaleString('en-US')} files (${Math.round(repository.bytes / 1024)} KB), ` +
      `one of ${BIG_FILE_LINES.toLocaleString('en-US')} lines, checked out as a worktree`,
  );
  let script: ((request: ScriptedRequest) => ScriptedTurn)[] = [];
  const endpoint = await startScriptedEndpoint((request) => {
    const turn = script[request.turn];
    if (!turn) throw new Error(`no turn ${request.turn} in the script`);
    return turn(request);
  });
  const providers: Record<Protocol, LlmProvider> = {
    anthropic: createAnthropicProvider({ apiKey: 'bench-key', baseURL: endpoint.url }),
    openai: createOpenAiProvider({ baseURL: `${endpoint.url}/v1` }),
  };
  const { worktree } = repository;
  const counters = { ...listingCache };

  async function runOnce(task: BenchTask, protocol: Protocol): Promise<RunOutcome> {
    await resetWorktree(worktree);
    script = task.turns();
    const firstRequest = endpoint.requests.length;
    const tools: Record<string, number[]> = {};
    const started = new Map<string, number>();
    const step: CoderStep = {
      runId: `bench-${task.id}-${protocol}`,
      worktree,
      prompt: task.prompt,
      title: task.title,
      provider: providers[protocol],
      model: 'scripted-model',
      maxTokens: 4096,
      maxToolCalls: 60,
      signal: new AbortController().signal,
      beforeWrite: async () => {},
      ...(task.withCheck ? { runCheck: (signal: AbortSignal) => runCheck(worktree, [], signal) } : {}),
      events: {
        onText: () => {},
        onToolCall: ({ callId }) => {
          started.set(callId, performance.now());
        },
        onToolResult: ({ callId, tool }) => {
          const took = performance.now() - (started.get(callId) ?? Number.NaN);
          tools[tool] = [...(tools[tool] ?? []), took];
        },
      },
    };
    const began = performance.now();
    let problem: string | null = null;
    let usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let toolCalls = 0;
    let turns = 0;
    try {
      const result = await createAutocoderEngine().run(step);
      usage = { cacheReadTokens: 0, cacheWriteTokens: 0, ...result.usage };
      toolCalls = result.toolCalls;
      turns = result.turns;
      if (result.summary === null) problem = 'the step ended without finish';
    } catch (error) {
      problem = `the step failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300);
    }
    const stepMs = performance.now() - began;
    problem ??= await task.verify(worktree);
    const requestBytes = endpoint.requests
      .slice(firstRequest)
      .reduce((sum, request) => sum + Buffer.byteLength(JSON.stringify(request.body)), 0);
    return {
      problem,
      sent: usage.inputTokens,
      received: usage.outputTokens,
      cacheRead: usage.cacheReadTokens ?? 0,
      cacheWrite: usage.cacheWriteTokens ?? 0,
      toolCalls,
      turns,
      requestBytes,
      stepMs,
      tools,
    };
  }

  try {
    const outcomes = new Map<string, RunOutcome[]>();
    const key = (task: BenchTask, protocol: Protocol) => `${task.id}/${protocol}`;
    for (const task of TASKS) for (const protocol of PROTOCOLS) await runOnce(task, protocol);
    for (let run = 0; run < config.runs; run++) {
      // Tasks and protocols take turns, so that the machine's load falls on all of them alike.
      for (const task of TASKS) {
        for (const protocol of run % 2 ? [...PROTOCOLS].reverse() : PROTOCOLS) {
          const list = outcomes.get(key(task, protocol)) ?? [];
          list.push(await runOnce(task, protocol));
          outcomes.set(key(task, protocol), list);
        }
      }
    }
    const tasks: TaskRow[] = [];
    const pooled: Record<string, number[]> = {};
    for (const task of TASKS) {
      for (const protocol of PROTOCOLS) {
        const runs = outcomes.get(key(task, protocol)) ?? [];
        const ok = runs.filter((run) => run.problem === null);
        const mean = (pick: (run: RunOutcome) => number) =>
          round(runs.reduce((sum, run) => sum + pick(run), 0) / Math.max(1, runs.length), 1);
        const tools: Record<string, number[]> = {};
        for (const run of runs) {
          for (const [tool, times] of Object.entries(run.tools)) {
            tools[tool] = [...(tools[tool] ?? []), ...times];
            pooled[tool] = [...(pooled[tool] ?? []), ...times];
          }
        }
        tasks.push({
          task: task.id,
          title: task.title,
          protocol,
          runs: runs.length,
          verified: ok.length,
          problems: [...new Set(runs.flatMap((run) => (run.problem ? [run.problem] : [])))].slice(0, 5),
          tokens: {
            sent: mean((run) => run.sent),
            received: mean((run) => run.received),
            cacheRead: mean((run) => run.cacheRead),
            cacheWrite: mean((run) => run.cacheWrite),
          },
          toolCalls: mean((run) => run.toolCalls),
          turns: mean((run) => run.turns),
          requestKb: round(
            runs.reduce((sum, run) => sum + run.requestBytes, 0) / Math.max(1, runs.length) / 1024,
            1,
          ),
          stepMs: percentiles(runs.map((run) => run.stepMs)),
          tools: Object.fromEntries(Object.entries(tools).map(([tool, times]) => [tool, percentiles(times)])),
        });
      }
    }
    await resetWorktree(worktree);
    console.log('  the tasks are done; now each tool directly');
    const micro = await microMeasure(worktree, config.calls);
    return {
      status: 'ok',
      repository: { files: repository.files, bytes: repository.bytes, bigFileLines: BIG_FILE_LINES },
      tasks,
      toolsInTasks: Object.fromEntries(
        Object.entries(pooled).map(([tool, times]) => [tool, percentiles(times)]),
      ),
      micro,
      listingCache: {
        hits: listingCache.hits - counters.hits,
        fills: listingCache.fills - counters.fills,
        kept: listingCache.kept - counters.kept,
      },
    };
  } finally {
    await endpoint.close();
    await rm(repository.root, { recursive: true, force: true });
  }
}
