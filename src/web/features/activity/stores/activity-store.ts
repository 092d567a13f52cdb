import { create } from 'zustand';
import type { CoordinationEvent, ProjectLock } from '@/contracts/coordination';
import { type ActivityState, emptyActivity, locksOfTask, reduceActivity, seedHeld } from './activity-reducer';

interface ActivityStoreState {
  /** The project the feed belongs to; another project starts an empty feed. */
  projectId: string | null;
  activity: ActivityState;
  /** One coordination event of `projectId`'s stream, as it came. */
  apply: (projectId: string, event: CoordinationEvent, id: number | null) => void;
  /** The locks held when the board opened. */
  seedLocks: (projectId: string, locks: readonly ProjectLock[]) => void;
}

export const useActivityStore = create<ActivityStoreState>((set) => ({
  projectId: null,
  activity: emptyActivity(),
  apply: (projectId, event, id) =>
    set((state) => {
      const current = state.projectId === projectId ? state.activity : emptyActivity();
      return { projectId, activity: reduceActivity(current, event, id) };
    }),
  seedLocks: (projectId, locks) =>
    set((state) => {
      const current = state.projectId === projectId ? state.activity : emptyActivity();
      return { projectId, activity: seedHeld(current, locks) };
    }),
}));

/** The project's feed entries, newest first. */
export const useActivityEntries = (projectId: string) =>
  useActivityStore((state) => (state.projectId === projectId ? state.activity.entries : EMPTY));

/** The locks each agent holds, by agent id (a run's name its task). */
export const useHeldLocks = (projectId: string) =>
  useActivityStore((state) => (state.projectId === projectId ? state.activity.held : NO_HELD));

/** How many files the task's pipeline run holds locks on. */
export const useTaskLockCount = (taskId: string) =>
  useActivityStore((state) => locksOfTask(state.activity, taskId));

const EMPTY: never[] = [];
const NO_HELD: ActivityState['held'] = {};
