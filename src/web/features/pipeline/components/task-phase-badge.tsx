import type { CardRun, TaskStatus } from '@/contracts/tasks';
import { useCardRun } from '../hooks/use-card-run';
import { useLockWait } from '../stores/pipeline-store';
import { LockWaitNotice } from './lock-wait-notice';
import { PhaseBadge } from './phase-badge';
import { SimulatedBadge } from './simulated-badge';

interface TaskPhaseBadgeProps {
  taskId: string;
  taskStatus: TaskStatus;
  /** The latest run as the board's list gave it. */
  run: CardRun | null;
}

/** A card's live pipeline phase (and the lock its run waits for), for the board to place on its cards. */
export function TaskPhaseBadge({ taskId, taskStatus, run: cardRun }: TaskPhaseBadgeProps) {
  const run = useCardRun(taskId, taskStatus, cardRun);
  const wait = useLockWait(taskId);
  if (!run) return null;
  return (
    <>
      <PhaseBadge label={run.label} tone={run.tone} />
      {run.simulated && <SimulatedBadge />}
      {wait && run.tone === 'active' && <LockWaitNotice wait={wait} compact testId="card-lock-wait" />}
    </>
  );
}
