import { type Announcements, DndContext, DragOverlay } from '@dnd-kit/core';
import { useMemo, useSyncExternalStore } from 'react';
import { toast } from 'sonner';
import {
  canMoveManually,
  MANUAL_TRANSITIONS,
  STATUS_LABELS,
  TASK_STATUSES,
  type TaskCard,
  type TaskStatus,
} from '@/contracts/tasks';
import { type DropRequest, useBoardDnd } from '../hooks/use-board-dnd';
import { columnOf, describeAllowed } from '../utils/board-columns';
import { BoardColumn } from './board-column';
import { ColumnTabs } from './column-tabs';
import { TaskCardView } from './task-card';

interface BoardProps {
  tasks: TaskCard[];
  onMove: (request: DropRequest) => void;
  onOpenTask: (task: TaskCard) => void;
  /** Below `md` (a phone): the one column shown, chosen with the column tabs. */
  phoneColumn?: TaskStatus;
  onPhoneColumnChange?: (status: TaskStatus) => void;
}

/** Tailwind's `md` breakpoint (48rem): from here on the board shows all its columns side by side. */
const WIDE_QUERY = '(min-width: 48rem)';

const subscribeWide = (onChange: () => void) => {
  const query = typeof window.matchMedia === 'function' ? window.matchMedia(WIDE_QUERY) : null;
  query?.addEventListener('change', onChange);
  return () => query?.removeEventListener('change', onChange);
};
// Without matchMedia (some test environments): the wide board.
const isWide = () => (typeof window.matchMedia === 'function' ? window.matchMedia(WIDE_QUERY).matches : true);

const screenReaderInstructions = {
  draggable:
    'Press Enter to open the task. Press Space to pick it up, the arrow keys to move it, Space again to drop it, Escape to cancel.',
};

/**
 * The five columns and drag-and-drop between them; only moves allowed by MANUAL_TRANSITIONS are
 * accepted. Below `md` one column is shown at a time, chosen from tabs that count every column's
 * tasks; a card is then dragged within its column only (the drawer's moves take it elsewhere).
 */
export function Board({
  tasks,
  onMove,
  onOpenTask,
  phoneColumn = 'backlog',
  onPhoneColumnChange = () => undefined,
}: BoardProps) {
  const wide = useSyncExternalStore(subscribeWide, isWide, () => true);
  const { sensors, collisionDetection, columns, activeTask, handlers } = useBoardDnd({
    tasks,
    onDrop: onMove,
    onRefused: (task, target) =>
      toast.error(
        `A ${STATUS_LABELS[task.status]} task cannot be moved to ${STATUS_LABELS[target]} by hand`,
        {
          description: `Allowed: ${describeAllowed(task.status, MANUAL_TRANSITIONS[task.status], STATUS_LABELS)}.`,
        },
      ),
  });
  const byId = useMemo(() => new Map(tasks.map((task) => [task.id, task])), [tasks]);
  const counts = Object.fromEntries(
    TASK_STATUSES.map((status) => [status, columns[status].length]),
  ) as Record<TaskStatus, number>;

  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up task ${byId.get(String(active.id))?.title ?? ''}.`,
    onDragOver: ({ over }) => {
      const status = over ? columnOf(columns, over.id) : undefined;
      return status ? `Over ${STATUS_LABELS[status]}.` : 'Not over a column.';
    },
    onDragEnd: ({ over }) => {
      const status = over ? columnOf(columns, over.id) : undefined;
      return status ? `Dropped in ${STATUS_LABELS[status]}.` : 'Dropped.';
    },
    onDragCancel: () => 'Move cancelled.',
  };

  return (
    <DndContext
      sensors={sensors}
      collisionDetection={collisionDetection}
      accessibility={{ announcements, screenReaderInstructions }}
      {...handlers}
    >
      <div className="flex h-full min-h-0 flex-col">
        <ColumnTabs
          className="md:hidden"
          counts={counts}
          selected={phoneColumn}
          onSelect={onPhoneColumnChange}
        />
        <div
          className="relative flex min-h-0 flex-1 gap-3 overflow-x-auto overscroll-x-contain px-4 pb-4"
          data-testid="board"
        >
          {TASK_STATUSES.map((status: TaskStatus) => (
            <BoardColumn
              key={status}
              status={status}
              tasks={columns[status].flatMap((id) => byId.get(id) ?? [])}
              dropAllowed={activeTask ? canMoveManually(activeTask.status, status) : undefined}
              onOpenTask={onOpenTask}
              phoneHidden={status !== phoneColumn}
              narrow={!wide}
            />
          ))}
        </div>
      </div>
      <DragOverlay dropAnimation={{ duration: 150, easing: 'ease-out' }}>
        {activeTask && (
          <TaskCardView task={activeTask} className="cursor-grabbing shadow-lg ring-1 ring-zinc-300" />
        )}
      </DragOverlay>
    </DndContext>
  );
}
