import { Gauge } from 'lucide-react';
import { cn } from '@/web/lib/cn';
import type { PipelineRunState } from '../stores/run-state';
import { formatCost, formatCount } from '../utils/run-labels';

/** Past this share of the budget the bar turns amber: the next calls may not fit. */
const NEAR_SHARE = 0.8;

export interface TaskSpendProps {
  /** Input + output tokens of all the task's runs. */
  tokens: number;
  /** Estimated cost of those tokens (the server prices each call; the simulator's are free). */
  costUsd: number;
  /** The project's `taskTokenBudget`; null: none. */
  budgetTokens: number | null;
  /** The worst case of the call a budget pause did not make: drawn past the spend. */
  refusedCallTokens?: number | null | undefined;
}

/** The task's spend over all its runs, against its project's token budget, as figures and a small bar. */
export function TaskSpend({ tokens, costUsd, budgetTokens, refusedCallTokens }: TaskSpendProps) {
  const share = budgetTokens ? tokens / budgetTokens : 0;
  const needed = refusedCallTokens ? tokens + refusedCallTokens : null;
  // The paused run's next call still does not fit (the budget may have been raised meanwhile).
  const blocked = budgetTokens !== null && needed !== null && needed > budgetTokens;
  const level = share >= 1 || blocked ? 'over' : share >= NEAR_SHARE ? 'near' : 'ok';
  const percent = (part: number) => `${Math.min(100, Math.max(0, part * 100)).toFixed(1)}%`;
  return (
    <section
      className="flex flex-col gap-1.5 text-xs text-zinc-600"
      data-testid="task-spend"
      data-level={level}
    >
      <p className="flex flex-wrap items-center gap-x-1.5">
        <Gauge aria-hidden="true" className="size-3.5 shrink-0 text-zinc-400" />
        <span className="font-medium text-zinc-700">Task spend</span>
        <span className="tabular-nums" data-testid="task-spend-tokens">
          {budgetTokens === null
            ? `${formatCount(tokens)} tokens`
            : `${formatCount(tokens)} of ${formatCount(budgetTokens)} tokens`}
        </span>
        <span aria-hidden="true">·</span>
        <span className="tabular-nums" data-testid="task-spend-cost">
          {formatCost(costUsd)} <span className="text-zinc-400">est.</span>
        </span>
        {budgetTokens === null && <span className="text-zinc-400">· no budget set</span>}
      </p>
      {budgetTokens !== null && (
        <>
          {/* The bar is drawn for the eye; a meter says the same to assistive technology. */}
          <meter
            className="sr-only"
            min={0}
            max={budgetTokens}
            value={Math.min(tokens, budgetTokens)}
            aria-label="Task token budget used"
            aria-valuetext={`${formatCount(tokens)} of ${formatCount(budgetTokens)} tokens`}
          />
          <div
            aria-hidden="true"
            className="flex h-1.5 w-full overflow-hidden rounded-full bg-zinc-100"
            data-testid="task-spend-bar"
          >
            <div
              className={cn(
                'h-full',
                level === 'ok' && 'bg-sky-500',
                level === 'near' && 'bg-amber-500',
                level === 'over' && 'bg-red-500',
              )}
              style={{ width: percent(share) }}
              data-testid="task-spend-used"
            />
            {refusedCallTokens ? (
              <div
                className="h-full bg-red-200"
                style={{ width: percent(refusedCallTokens / budgetTokens) }}
                title="The next call's worst case"
                data-testid="task-spend-next-call"
              />
            ) : null}
          </div>
        </>
      )}
      {budgetTokens !== null && refusedCallTokens && needed !== null ? (
        <p className={blocked ? 'text-red-700' : 'text-zinc-600'} data-testid="task-spend-needed">
          {blocked
            ? `The next call could use up to ${formatCount(refusedCallTokens)} tokens: it needs a budget of at least ${formatCount(needed)}.`
            : 'The budget now covers the next call: Retry resumes the run.'}
        </p>
      ) : null}
    </section>
  );
}

/** A run's task spend: its earlier runs' and its own usage, and the call a budget pause refused. */
export function taskSpendOf(run: PipelineRunState): Omit<TaskSpendProps, 'budgetTokens'> {
  const { earlierUsage: earlier, usage } = run;
  const refused = run.status === 'paused' ? run.errorDetails?.budget : undefined;
  return {
    tokens: earlier.inputTokens + earlier.outputTokens + usage.inputTokens + usage.outputTokens,
    // The server prices the simulator's calls at 0.
    costUsd: earlier.costUsd + usage.costUsd,
    refusedCallTokens: refused ? refused.callInputTokens + refused.callMaxOutputTokens : null,
  };
}
