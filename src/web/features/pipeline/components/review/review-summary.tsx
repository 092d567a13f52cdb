import { CircleCheck, CircleX } from 'lucide-react';
import type { ReactNode } from 'react';
import type { RunDiff } from '@/contracts/diff';
import { cn } from '@/web/lib/cn';
import type { CheckRun, PipelineRunState } from '../../stores/run-state';
import { seconds } from '../../utils/phase-steps';
import { formatCost, formatCount } from '../../utils/run-labels';

function Stat({ label, children, testId }: { label: string; children: ReactNode; testId: string }) {
  return (
    <div className="flex flex-col" data-testid={testId}>
      <dt className="text-[11px] text-zinc-500">{label}</dt>
      <dd className="text-sm font-medium text-zinc-900 tabular-nums">{children}</dd>
    </div>
  );
}

/** The last check's verdict, its exit code and time, and how many checks the run ran. */
function ChecksTile({ checks }: { checks: readonly CheckRun[] }) {
  const last = checks.at(-1)?.result ?? null;
  const count = `${checks.length} run${checks.length === 1 ? '' : 's'}`;
  return (
    <Stat label="Checks" testId="review-checks">
      {last === null ? (
        <span className="text-zinc-500">stopped · {count}</span>
      ) : (
        <span
          className={cn(
            'flex flex-wrap items-center gap-1',
            last.passed ? 'text-emerald-700' : 'text-red-700',
          )}
          data-passed={last.passed}
        >
          {last.passed ? (
            <CircleCheck aria-hidden="true" className="size-3.5" />
          ) : (
            <CircleX aria-hidden="true" className="size-3.5" />
          )}
          {last.passed ? 'passed' : last.timedOut ? 'timed out' : 'failed'}
          <span className="font-normal text-zinc-500">
            {last.exitCode === null ? '' : `exit ${last.exitCode} · `}
            {seconds(last.durationMs)} · {count}
          </span>
        </span>
      )}
    </Stat>
  );
}

/** The run at a glance: what changed, what the check and the reviewer made of it, and what it cost. */
export function ReviewSummary({
  run,
  stats,
  checks = [],
}: {
  run: PipelineRunState;
  stats: RunDiff['stats'];
  checks?: readonly CheckRun[] | undefined;
}) {
  const review = run.reviewFindings;
  const score = run.reviewScore ?? review?.score ?? null;
  return (
    <dl
      className="grid grid-cols-2 gap-x-4 gap-y-2 rounded-md border border-zinc-200 bg-zinc-50 px-3 py-2 sm:grid-cols-4"
      data-testid="review-summary"
    >
      <Stat label="Files changed" testId="review-files-changed">
        {formatCount(stats.filesChanged)}
      </Stat>
      <Stat label="Lines" testId="review-lines">
        <span className="text-emerald-700">+{formatCount(stats.additions)}</span>{' '}
        <span className="text-red-700">−{formatCount(stats.deletions)}</span>
      </Stat>
      <Stat label="Review score" testId="review-score">
        {score === null ? (
          <span className="text-zinc-400">not reviewed</span>
        ) : (
          <span
            className={cn(
              'flex items-center gap-1',
              review && (review.passed ? 'text-emerald-700' : 'text-red-700'),
            )}
          >
            {review &&
              (review.passed ? (
                <CircleCheck aria-label="passed" role="img" className="size-3.5" />
              ) : (
                <CircleX aria-label="did not pass" role="img" className="size-3.5" />
              ))}
            {score}/100
          </span>
        )}
      </Stat>
      {checks.length > 0 && <ChecksTile checks={checks} />}
      <Stat label="Fix iterations" testId="review-iterations">
        {run.iteration}
      </Stat>
      <Stat label="Tokens (in · out)" testId="review-tokens">
        {formatCount(run.usage.inputTokens)} · {formatCount(run.usage.outputTokens)}
      </Stat>
      <Stat label="Estimated cost" testId="review-cost">
        {formatCost(run.simulated ? 0 : run.usage.costUsd)}
        {run.simulated && <span className="ml-1 text-xs font-normal text-zinc-400">simulated, free</span>}
      </Stat>
    </dl>
  );
}
