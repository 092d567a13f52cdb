import type { TaskStatus } from '../../../../contracts/tasks';
import { useCardRun } from '../hooks/use-card-run';
import { PhaseBadge } from './phase-badge';
import { SimulatedBadge } from './simulated-badge';

interface TaskPhaseBadgeProps {
  taskId: string;
  taskStatus: TaskStatus;
}

/** A card's live pipeline phase, for the board to place on its cards. */
export function TaskPhaseBadge({ taskId, taskStatus }: TaskPhaseBadgeProps) {
  const run = useCardRun(taskId, taskStatus);
  if (!run) return null;
  return (
    <>
      <PhaseBadge label={run.label} tone={run.tone} />
      {run.simulated && <SimulatedBadge />}
    </>
  );
}
