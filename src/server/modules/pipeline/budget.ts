import type { AgentConfig, AgentType, TokenUsage } from '@/contracts/pipeline.js';
import type { Db } from '@/server/db/client.js';
import { AppError } from '@/server/lib/errors.js';
import type { BeforeCall } from './agents/agent-base.js';
import { type RunRow, tokenBudgetOf } from './runs.repo.js';

/*
 * A task's token budget (the project's `taskTokenBudget`): input + output tokens over all the
 * task's runs. Before every provider call the task's spend plus that call's worst case is held
 * against it; a call that could pass it is not made, and the run pauses (`budget_exceeded`).
 */

/**
 * UTF-8 bytes per token assumed for a prompt. Claude's tokenizer averages about 3.5–4 characters
 * per token on English and code (the simulator counts 4), so a third of the bytes errs on the high
 * side; text outside ASCII has more bytes per character, so it errs high there too, and a budget is
 * never passed because a prompt was counted short.
 */
export const PROMPT_BYTES_PER_TOKEN = 3;
/** The message framing a provider adds to the system prompt and the one user message. */
export const MESSAGE_OVERHEAD_TOKENS = 16;

/** The input tokens a call is counted as before it is made (see `PROMPT_BYTES_PER_TOKEN`). */
export function estimateInputTokens(system: string, prompt: string): number {
  const bytes = Buffer.byteLength(system, 'utf8') + Buffer.byteLength(prompt, 'utf8');
  return Math.ceil(bytes / PROMPT_BYTES_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS;
}

/** The worst a call can spend: its estimated input and its whole answer-token limit. */
export interface CallEstimate {
  inputTokens: number;
  maxOutputTokens: number;
}

export const worstCase = (call: CallEstimate) => call.inputTokens + call.maxOutputTokens;

const count = (tokens: number) => tokens.toLocaleString('en-US');

/** The task's spend, its budget, and what a call could add: said when a call is refused. */
function overBudget(agent: AgentType, spentTokens: number, budgetTokens: number, call: CallEstimate) {
  return (
    `The task has spent ${count(spentTokens)} of its ${count(budgetTokens)}-token budget, and the ${agent}'s next ` +
    `call could use up to ${count(worstCase(call))} more (about ${count(call.inputTokens)} in, at most ` +
    `${count(call.maxOutputTokens)} out)`
  );
}

/** The budget that would let the call be made. */
const neededBudget = (spentTokens: number, call: CallEstimate) => count(spentTokens + worstCase(call));

/** A provider call was not made: it could have passed the task's token budget. */
export class BudgetExceededError extends Error {
  constructor(
    readonly agent: AgentType,
    readonly spentTokens: number,
    readonly budgetTokens: number,
    readonly call: CallEstimate,
  ) {
    super(
      `${overBudget(agent, spentTokens, budgetTokens, call)}, so it was not made. Raise the project's task ` +
        `token budget to at least ${neededBudget(spentTokens, call)} and press Retry.`,
    );
    this.name = 'BudgetExceededError';
  }
}

/** Throws `BudgetExceededError` when `spent` plus the call's worst case passes `budget` (null: no budget). */
export function assertWithinBudget(
  agent: AgentType,
  spentTokens: number,
  budgetTokens: number | null,
  call: CallEstimate,
): void {
  if (budgetTokens === null) return;
  if (spentTokens + worstCase(call) > budgetTokens)
    throw new BudgetExceededError(agent, spentTokens, budgetTokens, call);
}

const tokens = (usage: TokenUsage) => usage.inputTokens + usage.outputTokens;

/** Where a run stands against its task's budget: the earlier runs' tokens and its own, as far as recorded. */
export interface RunSpend {
  projectId: string;
  /** Tokens of the task's earlier runs (fixed when the run was created). */
  earlierTokens: number;
  /** The run's own recorded usage; grows as its calls are recorded. */
  usage: TokenUsage;
}

/**
 * The check made before each provider call of a run. The budget is read afresh each time (one
 * indexed lookup), so a budget lowered during a run holds from its next call; what the current
 * agent call already spent on an earlier attempt (an answer that did not parse) counts too.
 */
export function budgetGuard(db: Db, agent: AgentType, run: RunSpend): BeforeCall {
  return async (request, spentInCall) => {
    const budget = await tokenBudgetOf(db, run.projectId);
    if (budget === null) return;
    const spent = run.earlierTokens + tokens(run.usage) + tokens(spentInCall.usage);
    assertWithinBudget(agent, spent, budget, {
      inputTokens: estimateInputTokens(request.system, request.prompt),
      maxOutputTokens: request.maxTokens,
    });
  };
}

/**
 * Retry of a run its budget paused: refused (409 `BUDGET_EXCEEDED`, the run stays paused) while
 * the budget still does not cover the refused call, counted with the answer-token limit the retry
 * asks for. The guard checks again before every call once the run goes on.
 */
export async function assertRetryWithinBudget(
  db: Db,
  run: Pick<RunRow, 'errorDetails' | 'inputTokens' | 'outputTokens' | 'earlierUsage'>,
  projectId: string,
  configs: Record<AgentType, AgentConfig>,
): Promise<void> {
  const refused = run.errorDetails?.budget;
  const agent = run.errorDetails?.failedAgent;
  if (run.errorDetails?.type !== 'budget_exceeded' || !refused || !agent) return;
  const budget = await tokenBudgetOf(db, projectId);
  const spent = tokens(run.earlierUsage) + tokens(run);
  const call = { inputTokens: refused.callInputTokens, maxOutputTokens: configs[agent].maxTokens };
  if (budget === null || spent + worstCase(call) <= budget) return;
  throw new AppError(
    'BUDGET_EXCEEDED',
    `${overBudget(agent, spent, budget, call)}. Raise the project's task token budget to at least ` +
      `${neededBudget(spent, call)} first.`,
    { spentTokens: spent, budgetTokens: budget, neededTokens: spent + worstCase(call) },
  );
}
