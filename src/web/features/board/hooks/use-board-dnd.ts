import {
  type CollisionDetection,
  closestCenter,
  closestCorners,
  type DragEndEvent,
  type DragOverEvent,
  type DragStartEvent,
  KeyboardSensor,
  PointerSensor,
  pointerWithin,
  rectIntersection,
  TouchSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import { arrayMove, sortableKeyboardCoordinates } from '@dnd-kit/sortable';
import { useCallback, useMemo, useRef, useState } from 'react';
import { canMoveManually, type TaskCard, type TaskStatus } from '@/contracts/tasks';
import { type ColumnIds, columnOf, groupTaskIds, statusOfColumnId } from '../utils/board-columns';

/** Mouse and pen drag after 5 px; touch is left to TouchSensor so that a swipe still scrolls the board. */
class MouseAndPenSensor extends PointerSensor {
  static override activators = [
    {
      eventName: 'onPointerDown' as const,
      handler: ({ nativeEvent: event }: { nativeEvent: PointerEvent }) =>
        event.isPrimary && event.button === 0 && event.pointerType !== 'touch',
    },
  ];
}

export interface DropRequest {
  task: TaskCard;
  status: TaskStatus;
  /** Final ids of every column. */
  columns: ColumnIds;
  position: number;
}

interface BoardDndOptions {
  tasks: readonly TaskCard[];
  onDrop: (request: DropRequest) => void;
  onRefused: (task: TaskCard, target: TaskStatus) => void;
}

/** Where in `ids` a card dragged over `overId` lands: after the card when the pointer is past its middle. */
function insertionIndex(ids: string[], event: DragOverEvent | DragEndEvent): number {
  const { over, active } = event;
  if (!over || statusOfColumnId(over.id)) return ids.length;
  const index = ids.indexOf(String(over.id));
  if (index < 0) return ids.length;
  const dragged = active.rect.current.translated;
  const below = dragged ? dragged.top > over.rect.top + over.rect.height / 2 : false;
  return below ? index + 1 : index;
}

function moveBetween(
  columns: ColumnIds,
  id: string,
  from: TaskStatus,
  to: TaskStatus,
  index: number,
): ColumnIds {
  const target = columns[to].filter((candidate) => candidate !== id);
  target.splice(Math.min(index, target.length), 0, id);
  return { ...columns, [from]: columns[from].filter((candidate) => candidate !== id), [to]: target };
}

/** Drag-and-drop state for the board: sensors, collision detection and the columns while a card is held. */
export function useBoardDnd({ tasks, onDrop, onRefused }: BoardDndOptions) {
  const baseColumns = useMemo(() => groupTaskIds(tasks), [tasks]);
  const byId = useMemo(() => new Map(tasks.map((task) => [task.id, task])), [tasks]);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [dragColumns, setDragColumns] = useState<ColumnIds | null>(null);
  // Handlers read the latest columns from here, not from a closure of an older render.
  const columnsRef = useRef<ColumnIds | null>(null);
  const columns = dragColumns ?? baseColumns;
  const activeTask = activeId ? byId.get(activeId) : undefined;

  const setColumns = (next: ColumnIds | null) => {
    columnsRef.current = next;
    setDragColumns(next);
  };

  const sensors = useSensors(
    useSensor(MouseAndPenSensor, { activationConstraint: { distance: 5 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 8 } }),
    // Enter stays free to open a card; Space picks it up and drops it.
    useSensor(KeyboardSensor, {
      coordinateGetter: sortableKeyboardCoordinates,
      keyboardCodes: { start: ['Space'], cancel: ['Escape'], end: ['Space', 'Enter'] },
    }),
  );

  const collisionDetection: CollisionDetection = useCallback((args) => {
    if (!args.pointerCoordinates) {
      // Keyboard: the held card has been put on top of its target; take what it covers most, cards first.
      const covered = rectIntersection(args);
      const card = covered.find((hit) => !statusOfColumnId(hit.id));
      if (card) return [card];
      return covered.length > 0 ? covered : closestCorners(args);
    }
    const hits = pointerWithin(args);
    const cards = hits.filter((hit) => !statusOfColumnId(hit.id));
    if (cards.length > 0) return cards;
    const column = hits[0] ?? rectIntersection(args)[0];
    const status = column ? statusOfColumnId(column.id) : undefined;
    if (!column || !status) return hits;
    // Over a column's empty space: aim at its nearest card, or the column itself when it is empty.
    const ids = (columnsRef.current ?? groupTaskIds([]))[status];
    const inColumn = args.droppableContainers.filter(
      (container) => ids.includes(String(container.id)) && container.id !== args.active.id,
    );
    return inColumn.length > 0 ? closestCenter({ ...args, droppableContainers: inColumn }) : [column];
  }, []);

  const reset = () => {
    setActiveId(null);
    setColumns(null);
  };

  const onDragStart = ({ active }: DragStartEvent) => {
    setActiveId(String(active.id));
    setColumns(baseColumns);
  };

  const onDragOver = (event: DragOverEvent) => {
    const current = columnsRef.current;
    const task = byId.get(String(event.active.id));
    if (!current || !task || !event.over) return;
    const from = columnOf(current, event.active.id);
    const to = columnOf(current, event.over.id);
    // Cards only visit columns they may enter; the sortable strategy animates moves within one column.
    if (!from || !to || from === to || !canMoveManually(task.status, to)) return;
    setColumns(moveBetween(current, task.id, from, to, insertionIndex(current[to], event)));
  };

  const onDragEnd = (event: DragEndEvent) => {
    const current = columnsRef.current;
    const task = byId.get(String(event.active.id));
    reset();
    if (!current || !task || !event.over) return;
    const target = columnOf(current, event.over.id);
    if (!target) return;
    if (!canMoveManually(task.status, target)) {
      onRefused(task, target);
      return;
    }
    const from = columnOf(current, task.id) ?? task.status;
    let next =
      from === target
        ? current
        : moveBetween(current, task.id, from, target, insertionIndex(current[target], event));
    const ids = next[target];
    const oldIndex = ids.indexOf(task.id);
    const overIndex = ids.indexOf(String(event.over.id));
    if (overIndex >= 0 && overIndex !== oldIndex)
      next = { ...next, [target]: arrayMove(ids, oldIndex, overIndex) };
    const position = next[target].indexOf(task.id);
    if (target === task.status && baseColumns[target].indexOf(task.id) === position) return;
    onDrop({ task, status: target, columns: next, position });
  };

  return {
    sensors,
    collisionDetection,
    columns,
    activeTask,
    handlers: { onDragStart, onDragOver, onDragEnd, onDragCancel: reset },
  };
}
