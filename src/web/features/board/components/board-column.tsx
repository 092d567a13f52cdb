import { useDroppable } from '@dnd-kit/core';
import { SortableContext, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { Ban } from 'lucide-react';
import { type TaskCard as Card, STATUS_LABELS, type TaskStatus } from '@/contracts/tasks';
import { cn } from '@/web/lib/cn';
import { columnDroppableId } from '../utils/board-columns';
import { columnPanelId } from './column-tabs';
import { statusDot } from './task-badges';
import { TaskCard } from './task-card';

interface BoardColumnProps {
  status: TaskStatus;
  tasks: Card[];
  /** While a card is held: whether it may be dropped here. */
  dropAllowed: boolean | undefined;
  onOpenTask: (task: Card) => void;
  /** Below `md` only the chosen column is shown: not this one. */
  phoneHidden?: boolean;
  /** The screen is below `md` (the column tabs show): a hidden column takes no drops. */
  narrow?: boolean;
}

export function BoardColumn({
  status,
  tasks,
  dropAllowed,
  onOpenTask,
  phoneHidden = false,
  narrow = false,
}: BoardColumnProps) {
  const offScreen = narrow && phoneHidden;
  const { setNodeRef, isOver } = useDroppable({ id: columnDroppableId(status), disabled: offScreen });
  const refused = dropAllowed === false;
  const headingId = `column-${status}-heading`;

  return (
    <section
      ref={setNodeRef}
      id={columnPanelId(status)}
      // On a phone the shown column is the panel of its tab.
      role={narrow ? 'tabpanel' : undefined}
      aria-labelledby={headingId}
      aria-disabled={refused || undefined}
      data-testid={`column-${status}`}
      data-drop-allowed={dropAllowed === undefined ? undefined : String(dropAllowed)}
      className={cn(
        'flex max-h-full w-full shrink-0 flex-col rounded-lg bg-zinc-100/80 ring-1 ring-zinc-200/70 transition',
        'md:w-72 lg:w-auto lg:min-w-56 lg:flex-1 lg:shrink',
        phoneHidden && 'max-md:hidden',
        dropAllowed && 'ring-sky-300',
        dropAllowed && isOver && 'bg-sky-50 ring-2 ring-sky-400',
        refused && 'opacity-45 saturate-0',
        refused && isOver && 'ring-2 ring-red-300',
      )}
    >
      <header className="flex items-center gap-2 px-3 pt-2.5 pb-2">
        <span aria-hidden="true" className={cn('size-2 rounded-full', statusDot[status])} />
        <h2 id={headingId} className="text-xs font-semibold tracking-wide text-zinc-700 uppercase">
          {STATUS_LABELS[status]}
        </h2>
        <span
          aria-hidden="true"
          className="rounded bg-zinc-200/80 px-1.5 text-[11px] font-medium text-zinc-600 tabular-nums"
          data-testid={`column-${status}-count`}
        >
          {tasks.length}
        </span>
        <span className="sr-only">{`${tasks.length} ${tasks.length === 1 ? 'task' : 'tasks'}`}</span>
        {refused && (
          <span className="ml-auto flex items-center gap-1 text-[11px] text-zinc-500">
            <Ban aria-hidden="true" className="size-3" />
            Not allowed
          </span>
        )}
      </header>
      <SortableContext
        id={status}
        items={tasks.map((task) => task.id)}
        disabled={offScreen ? { droppable: true } : undefined}
        strategy={verticalListSortingStrategy}
      >
        <ol className="flex min-h-16 flex-1 flex-col gap-1.5 overflow-y-auto px-2 pb-2">
          {tasks.map((task) => (
            <li key={task.id}>
              <TaskCard task={task} onOpen={onOpenTask} />
            </li>
          ))}
          {tasks.length === 0 && (
            <li className="flex items-center justify-center rounded-md border border-dashed border-zinc-300 px-3 py-5 text-xs text-zinc-400">
              No tasks
            </li>
          )}
        </ol>
      </SortableContext>
    </section>
  );
}
