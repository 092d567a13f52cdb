import { createContext, type ReactNode, useContext } from 'react';
import type { Task, TaskCard } from '@/contracts/tasks';

/**
 * Places where the app puts other features' content into the board without the board importing
 * them: the pipeline's phase badge on cards, its section in the task drawer, the activity button.
 */
export interface BoardSlots {
  /** Shown among a card's badges. */
  cardBadges?: (task: TaskCard) => ReactNode;
  /** A section of the task drawer, above the task's details. */
  taskSection?: (task: Task) => ReactNode;
  /**
   * A hook: whether the task's pipeline run is active (running or paused), when the drawer offers no
   * moves. The same function on every render.
   */
  useTaskRunActive?: (taskId: string) => boolean;
  /** At the end of the board's toolbar, after New task (the Activity button, where the feed is hidden). */
  toolbar?: ReactNode;
}

const BoardSlotsContext = createContext<BoardSlots>({});

export function BoardSlotsProvider({ slots, children }: { slots: BoardSlots; children: ReactNode }) {
  return <BoardSlotsContext.Provider value={slots}>{children}</BoardSlotsContext.Provider>;
}

export const useBoardSlots = () => useContext(BoardSlotsContext);
