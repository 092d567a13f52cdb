import { CircleCheck, CircleDashed, CircleX } from 'lucide-react';
import type { CheckRun } from '../../stores/run-state';

/** The repository's check on the run's last commit: what the reviewer saw before approving. */
export function ReviewChecks({ checks, running }: { checks: readonly CheckRun[]; running: boolean }) {
  const last = checks.at(-1) ?? null;
  const result = last?.result ?? null;
  const state = !last
    ? 'none'
    : result
      ? result.passed
        ? 'passed'
        : 'failed'
      : running
        ? 'running'
        : 'stopped';
  const Icon = state === 'passed' ? CircleCheck : state === 'failed' ? CircleX : CircleDashed;
  const tone =
    state === 'passed' ? 'text-emerald-700' : state === 'failed' ? 'text-red-700' : 'text-zinc-500';
  const summary = {
    none: 'No check ran on this run (the project has no check command).',
    running: 'The check is running…',
    stopped: 'The check was stopped before it ended.',
    passed: `The check passed in ${seconds(result?.durationMs ?? 0)}.`,
    failed: result?.timedOut
      ? `The check ran out of time after ${seconds(result.durationMs)}.`
      : `The check failed${result?.exitCode != null ? ` with exit code ${result.exitCode}` : ''} after ${seconds(result?.durationMs ?? 0)}.`,
  }[state];
  return (
    <section
      className="flex flex-col gap-1.5 rounded-md border border-zinc-200 bg-white px-3 py-2"
      aria-labelledby="review-checks-heading"
      data-testid="review-checks"
      data-result={state}
    >
      <h2 id="review-checks-heading" className="text-xs font-semibold text-zinc-700">
        Checks{checks.length > 1 ? ` (${checks.length} runs, the last shown)` : ''}
      </h2>
      <p className={`flex items-center gap-1.5 text-sm ${tone}`}>
        <Icon aria-hidden="true" className="size-4 shrink-0" />
        {summary}
      </p>
      {result?.nestedRepository && <p className="text-xs text-red-700">{result.nestedRepository}</p>}
      {result && result.tail.trim() !== '' && (
        <details>
          <summary className="cursor-pointer text-xs text-zinc-500">Its output (the end)</summary>
          <pre className="surface-dark mt-1 max-h-64 overflow-auto rounded bg-zinc-950 p-2 font-mono text-[11px] text-zinc-100">
            {result.tail}
          </pre>
        </details>
      )}
    </section>
  );
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
