import type { StoredEvent } from '@/contracts/pipeline.js';

export type Listener = (event: StoredEvent) => void;

/**
 * Fan-out of events to the SSE clients of this process. In-process now; a Redis
 * implementation (publish to a channel per stream, subscribe per process) can stand
 * behind the same interface when several processes serve.
 */
export interface EventBus {
  publish(stream: string, event: StoredEvent): void;
  /** Returns the unsubscribe function. */
  subscribe(stream: string, listener: Listener): () => void;
  listenerCount(stream: string): number;
}

export function createMemoryBus(): EventBus {
  const listeners = new Map<string, Set<Listener>>();
  return {
    publish(stream, event) {
      const set = listeners.get(stream);
      if (!set) return;
      for (const listener of set) listener(event);
    },
    subscribe(stream, listener) {
      let set = listeners.get(stream);
      if (!set) {
        set = new Set();
        listeners.set(stream, set);
      }
      set.add(listener);
      return () => {
        const current = listeners.get(stream);
        if (!current) return;
        current.delete(listener);
        if (current.size === 0) listeners.delete(stream);
      };
    },
    listenerCount(stream) {
      return listeners.get(stream)?.size ?? 0;
    },
  };
}

export const taskStream = (taskId: string) => `task:${taskId}`;
export const projectStream = (projectId: string) => `project:${projectId}`;
