import type { AgentCallUsage, AgentType } from '@/contracts/pipeline.js';
import { estimateCostUsd } from '../llm/pricing.js';
import { type AgentResult, unrecordedUsage } from './agents/agent-base.js';
import { budgetGuard } from './budget.js';
import type { DriverEnv, RunContext } from './run-context.js';
import { timelineEvents } from './run-timeline.js';
import type { RunRow } from './runs.repo.js';

/**
 * What an agent call of the run is given: provider, model, abort signal, where its chunks go, and
 * the task's token budget, checked before each provider call.
 */
export const agentParams = (env: DriverEnv, ctx: RunContext, agent: AgentType) => ({
  provider: ctx.provider,
  config: ctx.configs[agent],
  runId: ctx.runId,
  signal: ctx.handle.controller.signal,
  beforeCall: budgetGuard(env.db, agent, ctx),
  ...(env.maxAnswerBytes !== undefined ? { maxAnswerBytes: env.maxAnswerBytes } : {}),
  // Text the SDK had already buffered when the run was cancelled is not shown after the cancellation.
  onChunk: (chunk: string) => {
    if (!ctx.handle.cancelled) env.transitions.events.chunk(ctx.taskId, ctx.runId, agent, chunk);
  },
  // With AutoCoder's own engine, the planner and the reviewer may read the worktree before they answer.
  tools:
    ctx.coderEngine === 'autocoder'
      ? {
          worktree: ctx.worktreePath,
          maxToolCalls: ctx.maxToolCalls,
          events: timelineEvents(env, ctx, agent),
        }
      : undefined,
});

/** Adds a call's tokens and cost to the run (one write per call) and announces it. */
export async function recordCall(
  env: DriverEnv,
  ctx: RunContext,
  agent: AgentType,
  result: AgentResult<unknown>,
  loop?: { toolCalls: number; turns: number },
) {
  const costUsd =
    result.costUsd ?? estimateCostUsd(result.model, result.tokenUsage, { simulated: ctx.provider.simulated });
  const call: AgentCallUsage = {
    agent,
    model: result.model,
    ...result.tokenUsage,
    costUsd,
    durationMs: result.durationMs,
    ...loop,
  };
  ctx.usage.inputTokens += call.inputTokens;
  ctx.usage.outputTokens += call.outputTokens;
  ctx.usage.costUsd += costUsd;
  ctx.cursor.retryCount = 0;
  await env.transitions.events.task(ctx.taskId, ctx.runId, {
    type: 'usage',
    data: { runId: ctx.runId, call, total: { ...ctx.usage }, timestamp: env.now() },
  });
  return { call, text: result.text.slice(0, 50_000) };
}

/**
 * Adds to the run's totals what a failed agent call had spent (answers that did not parse, or
 * an attempt before the one that failed): those tokens count against the task's budget too.
 */
export function addUnrecordedUsage(ctx: RunContext, error: unknown): void {
  const spent = unrecordedUsage(error);
  if (!spent) return;
  ctx.usage.inputTokens += spent.usage.inputTokens;
  ctx.usage.outputTokens += spent.usage.outputTokens;
  ctx.usage.costUsd += estimateCostUsd(spent.model, spent.usage, { simulated: ctx.provider.simulated });
}

/** The run's records of its agent calls, as last written. */
export type CallRecords = Pick<RunRow, 'calls' | 'agentLogs'>;

/** Appends a call's record to the run's JSON arrays in the same UPDATE as the phase's own results. */
export function callPatch(
  row: CallRecords,
  agent: AgentType,
  recorded: { call: AgentCallUsage; text: string },
) {
  const logs = { planner: [], coder: [], reviewer: [], ...row.agentLogs };
  return {
    calls: [...row.calls, recorded.call],
    agentLogs: { ...logs, [agent]: [...(logs[agent] ?? []), recorded.text] },
  };
}

/** The run's token totals, as written with each call. */
export const usagePatch = (ctx: RunContext) => ({
  inputTokens: ctx.usage.inputTokens,
  outputTokens: ctx.usage.outputTokens,
  costUsd: ctx.usage.costUsd,
});
