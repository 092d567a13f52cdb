import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import type { KeyboardEvent } from 'react';
import type { TaskCard as Card } from '@/contracts/tasks';
import { cn } from '@/web/lib/cn';
import { useBoardSlots } from './board-slots';
import { CategoryBadge, PriorityBadge } from './task-badges';

interface TaskCardViewProps {
  task: Card;
  className?: string;
}

/** What a card looks like; shared by the sortable card and the copy that follows the pointer. */
export function TaskCardView({ task, className }: TaskCardViewProps) {
  const { cardBadges } = useBoardSlots();
  return (
    <div
      className={cn(
        'flex flex-col gap-2 rounded-md border border-zinc-200 bg-white p-2.5 text-left shadow-xs',
        className,
      )}
    >
      <p className="line-clamp-3 text-[13px] leading-snug font-medium break-words text-zinc-900">
        {task.title}
      </p>
      <div className="flex flex-wrap items-center gap-1">
        <CategoryBadge category={task.category} />
        <PriorityBadge priority={task.priority} />
        {cardBadges?.(task)}
      </div>
    </div>
  );
}

interface TaskCardProps {
  task: Card;
  onOpen: (task: Card) => void;
}

/** A draggable card: click or Enter opens it, Space picks it up, arrows move it, Space drops it. */
export function TaskCard({ task, onOpen }: TaskCardProps) {
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({
    id: task.id,
  });

  const handleKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Enter' && !isDragging && event.target === event.currentTarget) {
      event.preventDefault();
      onOpen(task);
      return;
    }
    listeners?.onKeyDown?.(event);
  };

  return (
    // biome-ignore lint/a11y/useSemanticElements: a <button> would also fire click on Space, which picks the card up.
    <div
      ref={setNodeRef}
      {...attributes}
      {...listeners}
      role="button"
      tabIndex={0}
      onKeyDown={handleKeyDown}
      onClick={() => onOpen(task)}
      aria-roledescription="draggable task"
      // Named by what it shows (title, category, priority, the app's badges): a label of its own would
      // leave out some of the visible text (WCAG 2.5.3, label in name).
      data-testid="task-card"
      data-task-id={task.id}
      data-status={task.status}
      style={{ transform: CSS.Translate.toString(transform), transition }}
      className={cn(
        'cursor-grab touch-manipulation rounded-md outline-none select-none focus-visible:ring-2 focus-visible:ring-sky-500',
        'hover:[&>div]:border-zinc-300 hover:[&>div]:shadow-sm',
        isDragging && 'opacity-40',
      )}
    >
      <TaskCardView task={task} />
    </div>
  );
}
