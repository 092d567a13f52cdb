import { CODER_ENGINE_LABELS, type CoderEngineId } from '@/contracts/projects';
import type { TaskCategory, TaskPriority, TaskStatus } from '@/contracts/tasks';
import { Badge } from '@/web/components/ui/badge';
import { cn } from '@/web/lib/cn';

export const CATEGORY_LABELS: Record<TaskCategory, string> = {
  feature: 'Feature',
  bug: 'Bug',
  refactor: 'Refactor',
  docs: 'Docs',
  test: 'Test',
  chore: 'Chore',
};

/** A coder engine's name without its explanation: "AutoCoder agent", "One-shot". */
export const engineName = (engine: CoderEngineId): string =>
  (CODER_ENGINE_LABELS[engine] ?? engine).replace(/\s*\(.*\)$/, '');

export const PRIORITY_LABELS: Record<TaskPriority, string> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  urgent: 'Urgent',
};

const categoryDot: Record<TaskCategory, string> = {
  feature: 'bg-violet-500',
  bug: 'bg-red-500',
  refactor: 'bg-amber-500',
  docs: 'bg-sky-500',
  test: 'bg-emerald-500',
  chore: 'bg-zinc-400',
};

const priorityStyle: Record<TaskPriority, string> = {
  low: 'bg-zinc-50 text-zinc-600 ring-zinc-200',
  medium: 'bg-sky-50 text-sky-700 ring-sky-200',
  high: 'bg-amber-50 text-amber-800 ring-amber-200',
  urgent: 'bg-red-50 text-red-700 ring-red-200',
};

export const statusDot: Record<TaskStatus, string> = {
  backlog: 'bg-zinc-400',
  spec: 'bg-violet-500',
  building: 'bg-sky-500',
  review: 'bg-amber-500',
  done: 'bg-emerald-500',
};

export function CategoryBadge({ category }: { category: TaskCategory }) {
  return (
    <Badge className="bg-white" data-category={category}>
      <span aria-hidden="true" className={cn('size-1.5 rounded-full', categoryDot[category])} />
      {CATEGORY_LABELS[category]}
    </Badge>
  );
}

export function PriorityBadge({ priority }: { priority: TaskPriority }) {
  return (
    <Badge className={priorityStyle[priority]} data-priority={priority}>
      <span className="sr-only">Priority: </span>
      {PRIORITY_LABELS[priority]}
    </Badge>
  );
}
