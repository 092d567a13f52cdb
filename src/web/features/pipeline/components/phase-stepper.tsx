import { Ban, Check, CircleAlert, Pause, X } from 'lucide-react';
import type { TaskStatus } from '@/contracts/tasks';
import { cn } from '@/web/lib/cn';
import type { CheckRun, PipelineRunState, SetupRun } from '../stores/run-state';
import { type PhaseStep, phaseSteps, type StepState } from '../utils/phase-steps';

interface PhaseStepperProps {
  run: PipelineRunState;
  taskStatus: TaskStatus;
  /** The run's setups (a Setup step when there are any). */
  setups?: readonly SetupRun[];
  /** The run's checks (a Check step when there are any). */
  checks?: readonly CheckRun[];
}

const circleStyle: Record<StepState, string> = {
  upcoming: 'border-zinc-300 bg-white text-zinc-400',
  skipped: 'border-dashed border-zinc-300 bg-white text-zinc-300',
  current: 'border-sky-500 bg-sky-500 text-white ring-4 ring-sky-100',
  complete: 'border-emerald-500 bg-emerald-500 text-white',
  rejected: 'border-red-400 bg-white text-red-600',
  paused: 'border-amber-500 bg-amber-500 text-white ring-4 ring-amber-100',
  failed: 'border-red-600 bg-red-600 text-white ring-4 ring-red-100',
  cancelled: 'border-zinc-500 bg-zinc-500 text-white',
};

const labelStyle: Record<StepState, string> = {
  upcoming: 'text-zinc-500',
  skipped: 'text-zinc-400',
  current: 'font-semibold text-sky-800',
  complete: 'text-zinc-700',
  rejected: 'text-red-700',
  paused: 'font-semibold text-amber-800',
  failed: 'font-semibold text-red-700',
  cancelled: 'font-semibold text-zinc-700',
};

const stateText: Record<StepState, string> = {
  upcoming: 'not started',
  skipped: 'not needed',
  current: 'in progress',
  complete: 'done',
  rejected: 'did not pass',
  paused: 'paused',
  failed: 'failed',
  cancelled: 'cancelled',
};

function StepIcon({ step, index }: { step: PhaseStep; index: number }) {
  switch (step.state) {
    case 'complete':
      return <Check aria-hidden="true" className="size-3.5" strokeWidth={3} />;
    case 'paused':
      return <Pause aria-hidden="true" className="size-3.5" strokeWidth={3} />;
    case 'failed':
      return <CircleAlert aria-hidden="true" className="size-3.5" strokeWidth={3} />;
    case 'cancelled':
      return <Ban aria-hidden="true" className="size-3.5" strokeWidth={3} />;
    case 'skipped':
      return <X aria-hidden="true" className="size-3" />;
    case 'rejected':
      return <X aria-hidden="true" className="size-3.5" strokeWidth={3} />;
    case 'current':
      return <span aria-hidden="true" className="size-2 animate-pulse rounded-full bg-white" />;
    default:
      return (
        <span aria-hidden="true" className="text-[11px] font-semibold">
          {index + 1}
        </span>
      );
  }
}

/** Where the run stands: the step it is at (or stopped at) is the one marked for screen readers. */
const isMarked = (state: StepState, run: PipelineRunState) =>
  state === 'current' ||
  state === 'paused' ||
  state === 'cancelled' ||
  (state === 'failed' && run.status === 'failed');

/**
 * [Setup] → Planning → Coding → [Check] → Reviewing → Fixing → Review/Done, with where the run is or
 * where it stopped.
 */
export function PhaseStepper({ run, taskStatus, setups, checks }: PhaseStepperProps) {
  const steps = phaseSteps(run, taskStatus, { setups, checks });
  return (
    <ol
      className="grid gap-1"
      style={{ gridTemplateColumns: `repeat(${steps.length}, minmax(0, 1fr))` }}
      aria-label="Pipeline phases"
      data-testid="phase-stepper"
      data-phase={run.phase}
      data-status={run.status}
    >
      {steps.map((step, index) => {
        const marked = isMarked(step.state, run);
        return (
          <li
            key={step.key}
            className="relative flex min-w-0 flex-col items-center gap-1 text-center"
            aria-current={marked ? 'step' : undefined}
            data-step={step.key}
            data-state={step.state}
          >
            {index > 0 && (
              <span
                aria-hidden="true"
                className={cn(
                  'absolute top-3 right-[calc(50%+0.875rem)] h-0.5 w-[calc(100%-1.75rem+0.25rem)]',
                  step.state === 'upcoming' || step.state === 'skipped' ? 'bg-zinc-200' : 'bg-emerald-400',
                )}
              />
            )}
            <span
              className={cn(
                'relative flex size-6 items-center justify-center rounded-full border-2',
                circleStyle[step.state],
              )}
            >
              <StepIcon step={step} index={index} />
            </span>
            <span className={cn('max-w-full truncate text-xs', labelStyle[step.state])}>{step.label}</span>
            <span className="sr-only">{`: ${stateText[step.state]}`}</span>
            {step.detail && (
              <span
                className="-mt-1 max-w-full truncate text-[11px] text-zinc-500 tabular-nums"
                data-testid={`phase-step-detail-${step.key}`}
              >
                {step.detail}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
