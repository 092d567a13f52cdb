import {
  ChevronDown,
  ChevronRight,
  CircleCheck,
  CircleX,
  DatabaseZap,
  LoaderCircle,
  TimerOff,
} from 'lucide-react';
import { useId, useState } from 'react';
import { Badge } from '@/web/components/ui/badge';
import { cn } from '@/web/lib/cn';
import type { SetupRun } from '../stores/run-state';
import { CommandOutput } from './check-log';

interface SetupLogProps {
  setups: readonly SetupRun[];
  /** The run is running: a setup without a result is still going (else it was stopped). */
  running: boolean;
}

type SetupState = 'running' | 'passed' | 'failed' | 'timed-out' | 'stopped';

function stateOf(setup: SetupRun, inProgress: boolean): SetupState {
  if (!setup.result) return inProgress ? 'running' : 'stopped';
  if (setup.result.passed) return 'passed';
  return setup.result.timedOut ? 'timed-out' : 'failed';
}

const STATE_LABEL: Record<SetupState, string> = {
  running: 'running…',
  passed: 'passed',
  failed: 'failed',
  'timed-out': 'timed out',
  stopped: 'stopped',
};

const STATE_STYLE: Record<SetupState, string> = {
  running: 'bg-sky-50 text-sky-700 ring-sky-200',
  passed: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  failed: 'bg-red-50 text-red-700 ring-red-200',
  'timed-out': 'bg-red-50 text-red-700 ring-red-200',
  stopped: 'bg-zinc-100 text-zinc-600 ring-zinc-200',
};

function StateIcon({ state }: { state: SetupState }) {
  const className = 'size-3.5';
  if (state === 'running')
    return <LoaderCircle aria-hidden="true" className={cn(className, 'animate-spin')} />;
  if (state === 'passed') return <CircleCheck aria-hidden="true" className={className} />;
  if (state === 'timed-out') return <TimerOff aria-hidden="true" className={className} />;
  return <CircleX aria-hidden="true" className={className} />;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/**
 * The worktree's setup (the project's setup command, run before the first check, service or coder
 * step): one compact line with how it went — from the dependency cache, installed, or failed — and
 * its output, open while it runs or when it failed, folded once it passed. After a Retry the latest
 * attempt is shown.
 */
export function SetupLog({ setups, running }: SetupLogProps) {
  const latest = setups.at(-1);
  const state = latest ? stateOf(latest, running) : null;
  const [picked, setPicked] = useState<boolean | null>(null);
  const outputId = useId();
  if (!latest || !state) return null;
  const result = latest.result;
  // It matters most while it runs or when it failed; a setup that passed is one line.
  const expanded = picked ?? state !== 'passed';
  return (
    <section
      className="flex flex-col gap-1.5 rounded-md border border-zinc-200 p-2"
      data-testid="setup-log"
      data-state={state}
    >
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={outputId}
          onClick={() => setPicked(!expanded)}
          className="flex items-center gap-1 rounded font-medium text-zinc-700 hover:text-zinc-950 focus-visible:outline-2 focus-visible:outline-sky-500"
          data-testid="setup-log-toggle"
        >
          {expanded ? (
            <ChevronDown aria-hidden="true" className="size-3.5" />
          ) : (
            <ChevronRight aria-hidden="true" className="size-3.5" />
          )}
          Setup
          {setups.length > 1 && <span className="font-normal text-zinc-500">(attempt {setups.length})</span>}
        </button>
        <Badge className={cn('flex items-center gap-1', STATE_STYLE[state])} data-testid="setup-state">
          <StateIcon state={state} />
          {STATE_LABEL[state]}
        </Badge>
        {result && (
          <span
            className="flex items-center gap-1 text-zinc-500 tabular-nums"
            title={result.paths.length > 0 ? result.paths.join(', ') : undefined}
            data-testid="setup-result"
            data-cache={result.cache}
            data-passed={String(result.passed)}
          >
            {result.cache === 'hit' ? (
              <>
                <DatabaseZap aria-hidden="true" className="size-3.5 text-emerald-600" />
                from cache
              </>
            ) : result.passed ? (
              result.cache === 'miss' ? (
                'installed, now cached'
              ) : (
                'installed (no lockfile to cache by)'
              )
            ) : result.exitCode === null ? (
              'no exit code'
            ) : (
              `exit code ${result.exitCode}`
            )}
            {' · '}
            {seconds(result.durationMs)}
            {result.timedOut && ' · stopped at the time limit'}
          </span>
        )}
      </div>
      {result && !result.passed && result.reason && (
        <p className="text-xs text-red-700" data-testid="setup-reason">
          {result.reason}
        </p>
      )}
      {expanded && (
        <CommandOutput
          id={outputId}
          output={latest}
          visible={expanded}
          label="Output of the setup"
          testId="setup-output"
        />
      )}
    </section>
  );
}
