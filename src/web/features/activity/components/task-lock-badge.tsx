import { Lock } from 'lucide-react';
import { Badge } from '@/web/components/ui/badge';
import { useTaskLockCount } from '../stores/activity-store';

/** A card's lock badge: how many files the task's pipeline run holds WRITING locks on, when any. */
export function TaskLockBadge({ taskId }: { taskId: string }) {
  const count = useTaskLockCount(taskId);
  if (count === 0) return null;
  const label = `Holds locks on ${count} file${count === 1 ? '' : 's'}`;
  return (
    <Badge
      className="bg-violet-50 text-violet-800 ring-violet-200"
      data-testid="task-lock-badge"
      title={label}
      aria-label={label}
    >
      <Lock aria-hidden="true" className="size-3" />
      {count}
    </Badge>
  );
}
