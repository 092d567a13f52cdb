import type { CoordinationEvent, LockStatus, ProjectLock } from '@/contracts/coordination';

/** One agent's lock on one file, as the graph shows it. */
export interface HeldLock {
  agent: { id: string; name: string };
  status: LockStatus;
  /** The agent's sentence of intent: text from an agent, shown as text. */
  message: string;
  /** When the agent took it (ms): a re-post of the same lock keeps it, a change of status starts anew. */
  since: number;
  /** Set when the agent is a pipeline run: its task. */
  taskId?: string;
}

/** Every live lock of one branch, by file: each holder once (one WRITING at most, any READING). */
export interface LockState {
  branch: string;
  files: Readonly<Record<string, readonly HeldLock[]>>;
}

export const emptyLockState = (branch: string): LockState => ({ branch, files: {} });

/** The locks of the branch from the project's snapshot (GET /api/projects/:id/locks). */
export function lockStateFrom(branch: string, locks: readonly ProjectLock[]): LockState {
  const files: Record<string, HeldLock[]> = {};
  for (const lock of locks) {
    const held: HeldLock = {
      agent: { id: lock.agent.id, name: lock.agent.name },
      status: lock.status,
      message: lock.message,
      since: lock.timestamp,
      ...(lock.taskId ? { taskId: lock.taskId } : {}),
    };
    files[lock.path] = [...(files[lock.path] ?? []).filter((h) => h.agent.id !== lock.agent.id), held];
  }
  return { branch, files };
}

/**
 * The locks after one event of the project's stream, without asking the server: `lock-taken`
 * (re)places the agent's lock on each file, `lock-released` and `lock-expired` drop the agent's locks
 * on theirs, `lock-refused` changes nothing. Events of another branch change nothing either.
 */
export function reduceLocks(state: LockState, event: CoordinationEvent): LockState {
  if (event.data.branch !== state.branch || event.type === 'lock-refused') return state;
  const { agent, files: paths } = event.data;
  const files = { ...state.files };
  for (const path of paths) {
    const others = (files[path] ?? []).filter((held) => held.agent.id !== agent.id);
    if (event.type === 'lock-taken' && event.data.status !== 'OPEN') {
      const before = files[path]?.find((held) => held.agent.id === agent.id);
      const status = event.data.status;
      others.push({
        agent: { id: agent.id, name: agent.name },
        status,
        message: event.data.message,
        since: before?.status === status ? before.since : event.data.timestamp,
        ...(event.data.taskId ? { taskId: event.data.taskId } : {}),
      });
    }
    if (others.length > 0) files[path] = others;
    else delete files[path];
  }
  return { ...state, files };
}

/** Of a file's holders, the one the graph colours it by: the writer, else the latest reader. */
export function shownHolder(holders: readonly HeldLock[] | undefined): HeldLock | undefined {
  if (!holders || holders.length === 0) return undefined;
  const writer = holders.find((held) => held.status === 'WRITING');
  if (writer) return writer;
  return holders.reduce((latest, held) => (held.since > latest.since ? held : latest));
}

/** A file's holders in the order the panel lists them: the writer first, then readers, latest first. */
export function holdersInOrder(holders: readonly HeldLock[] | undefined): HeldLock[] {
  return [...(holders ?? [])].sort(
    (a, b) => Number(b.status === 'WRITING') - Number(a.status === 'WRITING') || b.since - a.since,
  );
}
