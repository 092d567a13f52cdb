import type { Logger } from '@/server/lib/logger.js';
import type { SseCloseReason, SseStream } from './sse-stream.js';

export interface SseHubOptions {
  /** Open streams one user may hold; opening one more closes their oldest. */
  maxStreamsPerUser: number;
  /** How often the sessions of open streams are checked (expired or deleted ones end their streams). */
  sessionCheckMs: number;
  /** Of the given session ids, those still valid: one query for all open streams. */
  liveSessions: (sessionIds: string[]) => Promise<Set<string>>;
  logger: Logger;
}

export interface SseHubStats {
  open: number;
  /** Clients closed because they could not keep up. */
  droppedSlow: number;
  /** Streams closed because their session ended (logout, expiry, deletion). */
  closedSessionEnded: number;
  /** Oldest streams closed to make room under the per-user cap. */
  closedOverCap: number;
}

interface Entry {
  stream: SseStream;
  userId: string;
  sessionId: string;
}

/**
 * The open SSE streams of this process, by user and by session: it enforces the per-user
 * cap, ends a session's streams on logout, and checks periodically that the sessions of open
 * streams still exist.
 */
export class SseHub {
  /** Insertion order is opening order: the first entry of a user is their oldest stream. */
  private readonly byUser = new Map<string, Set<Entry>>();
  private readonly bySession = new Map<string, Set<Entry>>();
  private timer: NodeJS.Timeout | null = null;
  private checking = false;
  readonly stats: SseHubStats = { open: 0, droppedSlow: 0, closedSessionEnded: 0, closedOverCap: 0 };

  constructor(private readonly options: SseHubOptions) {}

  /** Tracks a stream until it ends; past the user's cap, their oldest stream is closed. */
  add(stream: SseStream, userId: string, sessionId: string): void {
    const entry: Entry = { stream, userId, sessionId };
    const ofUser = setIn(this.byUser, userId);
    ofUser.add(entry);
    setIn(this.bySession, sessionId).add(entry);
    this.stats.open += 1;
    this.startChecking();
    void stream.done.then((reason) => this.remove(entry, reason));
    while (ofUser.size > this.options.maxStreamsPerUser) {
      const oldest = ofUser.values().next().value as Entry;
      this.forget(oldest);
      this.stats.closedOverCap += 1;
      oldest.stream.end('over-cap');
    }
  }

  /** Ends the streams of a session at once (logout). */
  endSession(sessionId: string): void {
    for (const entry of [...(this.bySession.get(sessionId) ?? [])]) {
      this.forget(entry);
      this.stats.closedSessionEnded += 1;
      entry.stream.end('session-ended');
    }
  }

  /** Ends the streams whose session has expired or been deleted. */
  async checkSessions(): Promise<void> {
    if (this.checking || this.bySession.size === 0) return;
    this.checking = true;
    try {
      const ids = [...this.bySession.keys()];
      const live = await this.options.liveSessions(ids);
      for (const id of ids) if (!live.has(id)) this.endSession(id);
    } catch (error) {
      this.options.logger.warn('could not check the sessions of open SSE streams', { error });
    } finally {
      this.checking = false;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private startChecking() {
    if (this.timer) return;
    this.timer = setInterval(() => void this.checkSessions(), this.options.sessionCheckMs);
    this.timer.unref();
  }

  private remove(entry: Entry, reason: SseCloseReason) {
    if (reason === 'slow') this.stats.droppedSlow += 1;
    this.forget(entry);
  }

  private forget(entry: Entry) {
    const ofUser = this.byUser.get(entry.userId);
    if (!ofUser?.delete(entry)) return;
    if (ofUser.size === 0) this.byUser.delete(entry.userId);
    const ofSession = this.bySession.get(entry.sessionId);
    ofSession?.delete(entry);
    if (ofSession?.size === 0) this.bySession.delete(entry.sessionId);
    this.stats.open -= 1;
    if (this.stats.open === 0) this.close();
  }
}

function setIn<K, V>(map: Map<K, Set<V>>, key: K): Set<V> {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  return set;
}
