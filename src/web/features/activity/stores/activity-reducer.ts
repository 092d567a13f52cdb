import type { CoordinationEvent, ProjectLock } from '@/contracts/coordination';

/** At most this many entries are kept in a project's feed; older ones fall off the end. */
export const MAX_FEED_ENTRIES = 200;

/** One line of the activity feed: an agent's post (a lock taken, refused or released) or an expiry. */
export interface ActivityEntry {
  /** Unique within the feed (React key). */
  key: string;
  type: CoordinationEvent['type'];
  agent: { id: string; name: string };
  branch: string;
  files: string[];
  message: string;
  timestamp: number;
  status?: string;
  /** lock-refused: the files in the way, and who holds them (id, name, and task when a run). */
  conflicts?: string[];
  holder?: string;
  holderName?: string;
  holderTaskId?: string;
  /** Set when the agent is a pipeline run: its task. */
  taskId?: string;
}

/** The files one agent holds, as the feed's events tell it. */
export interface HeldLocks {
  taskId?: string;
  files: string[];
}

export interface ActivityState {
  /** Newest first, at most MAX_FEED_ENTRIES. */
  entries: ActivityEntry[];
  /** By agent id. */
  held: Record<string, HeldLocks>;
  /** Events seen, for keys. */
  seen: number;
}

export const emptyActivity = (): ActivityState => ({ entries: [], held: {}, seen: 0 });

function withHeld(held: Record<string, HeldLocks>, agentId: string, next: HeldLocks | null) {
  const copy = { ...held };
  if (next && next.files.length > 0) copy[agentId] = next;
  else delete copy[agentId];
  return copy;
}

/** The feed's line for one coordination event (`key`: its id in the stream, when it has one). */
export function entryOf(event: CoordinationEvent, key: string): ActivityEntry {
  const { data } = event;
  const taskId = 'taskId' in data ? data.taskId : undefined;
  return {
    key,
    type: event.type,
    agent: data.agent,
    branch: data.branch,
    files: data.files,
    message: data.message,
    timestamp: data.timestamp,
    ...('status' in data ? { status: data.status } : {}),
    ...(event.type === 'lock-refused'
      ? {
          conflicts: event.data.conflicts,
          holder: event.data.holder,
          ...(event.data.holderName ? { holderName: event.data.holderName } : {}),
          ...(event.data.holderTaskId ? { holderTaskId: event.data.holderTaskId } : {}),
        }
      : {}),
    ...(taskId ? { taskId } : {}),
  };
}

/**
 * The feed's entries: the live ones and the history loaded from the server (`older`, newest first),
 * each event once, newest first (by its id in the stream; entries without one are newest).
 */
export function mergeEntries(
  live: readonly ActivityEntry[],
  older: readonly ActivityEntry[],
): ActivityEntry[] {
  if (older.length === 0) return [...live];
  const byKey = new Map<string, ActivityEntry>();
  for (const entry of [...live, ...older]) if (!byKey.has(entry.key)) byKey.set(entry.key, entry);
  const rank = (entry: ActivityEntry) => (/^\d+$/.test(entry.key) ? Number(entry.key) : Infinity);
  return [...byKey.values()].sort((a, b) => rank(b) - rank(a) || 0);
}

/** The feed after one coordination event of the project's stream. */
export function reduceActivity(
  state: ActivityState,
  event: CoordinationEvent,
  id: number | null,
): ActivityState {
  const { data } = event;
  const seen = state.seen + 1;
  const taskId = 'taskId' in data ? data.taskId : undefined;
  const entry = entryOf(event, id === null ? `local-${seen}` : String(id));
  const entries = [entry, ...state.entries].slice(0, MAX_FEED_ENTRIES);
  const mine = state.held[data.agent.id];
  let held = state.held;
  if (event.type === 'lock-taken') {
    const files = [...new Set([...(mine?.files ?? []), ...data.files])];
    const owner = taskId ?? mine?.taskId;
    held = withHeld(held, data.agent.id, { ...(owner ? { taskId: owner } : {}), files });
  } else if (event.type === 'lock-released' || event.type === 'lock-expired') {
    const gone = new Set(data.files);
    held = withHeld(
      held,
      data.agent.id,
      mine ? { ...mine, files: mine.files.filter((f) => !gone.has(f)) } : null,
    );
  }
  return { entries, held, seen };
}

/** How many files the pipeline run of `taskId` holds. */
export function locksOfTask(state: ActivityState, taskId: string): number {
  let count = 0;
  for (const held of Object.values(state.held)) if (held.taskId === taskId) count += held.files.length;
  return count;
}

/**
 * The held locks from the project's snapshot (GET …/locks), replacing what the feed had gathered: the
 * snapshot was read after the events already applied; later events apply on top of it.
 */
export function seedHeld(state: ActivityState, locks: readonly ProjectLock[]): ActivityState {
  const held: Record<string, HeldLocks> = {};
  for (const lock of locks) {
    const mine = held[lock.agent.id] ?? { ...(lock.taskId ? { taskId: lock.taskId } : {}), files: [] };
    held[lock.agent.id] = { ...mine, files: [...mine.files, lock.path] };
  }
  return { ...state, held };
}
