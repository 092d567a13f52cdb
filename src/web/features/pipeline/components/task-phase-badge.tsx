import type { CardRun, TaskStatus } from '@/contracts/tasks';
import { useCardRun } from '../hooks/use-card-run';
import { PhaseBadge } from './phase-badge';
import { SimulatedBadge } from './simulated-badge';

interface TaskPhaseBadgeProps {
  taskId: string;
  taskStatus: TaskStatus;
  /** The latest run as the board's list gave it. */
  run: CardRun | null;
}

/** A card's live pipeline phase, for the board to place on its cards. */
export function TaskPhaseBadge({ taskId, taskStatus, run: cardRun }: TaskPhaseBadgeProps) {
  const run = useCardRun(taskId, taskStatus, cardRun);
  if (!run) return null;
  return (
    <>
      <PhaseBadge label={run.label} tone={run.tone} />
      {run.simulated && <SimulatedBadge />}
    </>
  );
}
