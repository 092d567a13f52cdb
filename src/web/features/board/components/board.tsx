import { type Announcements, DndContext, DragOverlay } from '@dnd-kit/core';
import { useMemo } from 'react';
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
import { TaskCardView } from './task-card';

interface BoardProps {
  tasks: TaskCard[];
  onMove: (request: DropRequest) => void;
  onOpenTask: (task: TaskCard) => void;
}

const screenReaderInstructions = {
  draggable:
    'Press Enter to open the task. Press Space to pick it up, the arrow keys to move it, Space again to drop it, Escape to cancel.',
};

/** The five columns and drag-and-drop between them; only moves allowed by MANUAL_TRANSITIONS are accepted. */
export function Board({ tasks, onMove, onOpenTask }: BoardProps) {
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
      <div
        className="relative flex h-full snap-x snap-mandatory gap-3 overflow-x-auto overscroll-x-contain px-4 pb-4 sm:snap-none"
        data-testid="board"
      >
        {TASK_STATUSES.map((status: TaskStatus) => (
          <BoardColumn
            key={status}
            status={status}
            tasks={columns[status].flatMap((id) => byId.get(id) ?? [])}
            dropAllowed={activeTask ? canMoveManually(activeTask.status, status) : undefined}
            onOpenTask={onOpenTask}
          />
        ))}
      </div>
      <DragOverlay dropAnimation={{ duration: 150, easing: 'ease-out' }}>
        {activeTask && (
          <TaskCardView task={activeTask} className="cursor-grabbing shadow-lg ring-1 ring-zinc-300" />
        )}
      </DragOverlay>
    </DndContext>
  );
}
