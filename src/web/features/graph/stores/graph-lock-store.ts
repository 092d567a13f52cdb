import { create } from 'zustand';
import type { CoordinationEvent, ProjectLocksResponse } from '@/contracts/coordination';
import { emptyLockState, type LockState, lockStateFrom, reduceLocks } from '../utils/lock-state';

interface GraphLockStoreState {
  /** The project the locks belong to; another project starts empty. */
  projectId: string | null;
  locks: LockState;
  /** The project's snapshot, replacing what the events had gathered (it was read after them). */
  seed: (projectId: string, snapshot: ProjectLocksResponse) => void;
  /** One coordination event of `projectId`'s stream, as it came; `branch` is the branch shown. */
  apply: (projectId: string, branch: string, event: CoordinationEvent) => void;
}

export const useGraphLockStore = create<GraphLockStoreState>((set) => ({
  projectId: null,
  locks: emptyLockState(''),
  seed: (projectId, snapshot) => set({ projectId, locks: lockStateFrom(snapshot.branch, snapshot.locks) }),
  apply: (projectId, branch, event) =>
    set((state) => {
      const current =
        state.projectId === projectId && state.locks.branch === branch ? state.locks : emptyLockState(branch);
      return { projectId, locks: reduceLocks(current, event) };
    }),
}));

const EMPTY = emptyLockState('');

/** The project's live locks. */
export const useGraphLocks = (projectId: string) =>
  useGraphLockStore((state) => (state.projectId === projectId ? state.locks : EMPTY));
