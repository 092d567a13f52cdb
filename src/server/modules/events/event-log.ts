import { performance } from 'node:perf_hooks';
import type { PipelineEvent, StoredEvent } from '@/contracts/pipeline.js';
import type { Db } from '@/server/db/client.js';
import type { Logger } from '@/server/lib/logger.js';
import type { EventBus } from './bus.js';
import {
  type EventRow,
  eventsAfter,
  eventsBefore,
  firstSeqOfRun,
  insertEvents,
  maxSeq,
} from './events.repo.js';

export interface EventLogOptions {
  /** Pending events are written at least this often. */
  flushIntervalMs?: number;
  /** …or as soon as this many are pending. */
  maxBatch?: number;
  /** Consecutive `agent-log` chunks of one agent within this window become one event (0: never). */
  coalesceMs?: number;
}

type AgentLogData = Extract<PipelineEvent, { type: 'agent-log' }>['data'];

/** A coalesced chunk stops growing at this size, so one event stays small. */
const MAX_COALESCED_CHARS = 16 * 1024;

interface OpenChunk {
  runId: string | null;
  data: AgentLogData;
  /** performance.now() when its first chunk came. */
  openedAt: number;
  timer: NodeJS.Timeout;
}

export interface EventLogStats {
  /** INSERT statements issued (one per batch). */
  writes: number;
  /** Events written. */
  persisted: number;
}

/**
 * The ordered, persisted log behind every SSE stream. `append` numbers an event within
 * its stream, publishes it at once to the bus (live clients), and queues it for a
 * batched INSERT — so a token costs no write of its own. `replay` flushes what is
 * pending for the stream first, so a reconnecting client sees no gap.
 */
export class EventLog {
  private readonly seqs = new Map<string, Promise<{ seq: number }>>();
  private pending: EventRow[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly coalesceMs: number;
  /** Per stream, the agent-log event still taking chunks. */
  private readonly openChunks = new Map<string, OpenChunk>();
  readonly stats: EventLogStats = { writes: 0, persisted: 0 };

  constructor(
    readonly db: Db,
    readonly bus: EventBus,
    private readonly logger: Logger,
    private readonly now: () => number,
    options: EventLogOptions = {},
  ) {
    this.flushIntervalMs = options.flushIntervalMs ?? 200;
    this.maxBatch = options.maxBatch ?? 500;
    this.coalesceMs = options.coalesceMs ?? 5;
  }

  private counter(stream: string) {
    let entry = this.seqs.get(stream);
    if (!entry) {
      entry = maxSeq(this.db, stream).then((seq) => ({ seq }));
      entry.catch(() => this.seqs.delete(stream));
      this.seqs.set(stream, entry);
    }
    return entry;
  }

  /**
   * An agent's streamed text. Consecutive chunks of one agent on a stream within `coalesceMs`
   * of the first become one event, so a fast provider costs a few events per window rather
   * than one per token; any other event on the stream ends the window first, so order holds.
   * The window ends on time even when its timer cannot fire (an event loop busy with a fast
   * stream): a chunk past it starts a new event, so coalescing never delays text by more than
   * `coalesceMs` while chunks keep coming.
   */
  appendChunk(stream: string, runId: string | null, data: AgentLogData): void {
    const open = this.openChunks.get(stream);
    if (
      open &&
      open.runId === runId &&
      open.data.agent === data.agent &&
      open.data.chunk.length < MAX_COALESCED_CHARS &&
      performance.now() - open.openedAt < this.coalesceMs
    ) {
      open.data.chunk += data.chunk;
      return;
    }
    this.closeChunk(stream);
    const copy = { ...data };
    if (this.coalesceMs <= 0) {
      this.appendQuietly(stream, { type: 'agent-log', data: copy }, runId);
      return;
    }
    const timer = setTimeout(() => this.closeChunk(stream), this.coalesceMs);
    this.openChunks.set(stream, { runId, data: copy, openedAt: performance.now(), timer });
  }

  private closeChunk(stream: string): Promise<unknown> | undefined {
    const open = this.openChunks.get(stream);
    if (!open) return undefined;
    this.openChunks.delete(stream);
    clearTimeout(open.timer);
    return this.appendQuietly(stream, { type: 'agent-log', data: open.data }, open.runId);
  }

  private appendQuietly(stream: string, event: PipelineEvent, runId: string | null): Promise<unknown> {
    return this.append(stream, event, runId).catch((error: unknown) =>
      this.logger.error('event could not be appended', { stream, error }),
    );
  }

  /** Numbers, publishes and queues an event. Events appended to one stream keep their order. */
  async append(stream: string, event: PipelineEvent, runId: string | null = null): Promise<StoredEvent> {
    this.closeChunk(stream);
    const counter = await this.counter(stream);
    counter.seq += 1;
    const stored = { ...event, id: counter.seq } as StoredEvent;
    this.bus.publish(stream, stored);
    this.pending.push({
      stream,
      seq: counter.seq,
      runId,
      type: event.type,
      data: event.data,
      createdAt: new Date(this.now()),
    });
    if (this.pending.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs);
    return stored;
  }

  /** Writes everything pending in one INSERT; concurrent calls queue behind each other. */
  flush(): Promise<void> {
    // Chunks still coalescing are appended first, so the batch (and a replay after it) holds them.
    const closing = [...this.openChunks.keys()].map((stream) => this.closeChunk(stream));
    if (closing.length > 0) return Promise.allSettled(closing).then(() => this.flush());
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const batch = this.pending;
    this.pending = [];
    this.flushing = this.flushing.then(async () => {
      if (batch.length === 0) return;
      try {
        await insertEvents(this.db, batch);
        this.stats.writes += 1;
        this.stats.persisted += batch.length;
      } catch (error) {
        // Keep the events: put them back in front and try again on the next flush.
        this.pending = [...batch, ...this.pending];
        this.logger.error('event batch could not be written; will retry', { error, size: batch.length });
        this.timer ??= setTimeout(() => void this.flush(), this.flushIntervalMs * 5);
      }
    });
    return this.flushing;
  }

  /** Events of a stream after `afterSeq`, including those not yet written. */
  async replay(stream: string, afterSeq: number, limit = 10_000): Promise<StoredEvent[]> {
    await this.flush();
    return eventsAfter(this.db, stream, afterSeq, limit);
  }

  /** A stream's events of `types` before `beforeSeq` (null: the newest), newest first, those not yet written included. */
  async history(
    stream: string,
    types: readonly string[],
    beforeSeq: number | null,
    limit: number,
  ): Promise<StoredEvent[]> {
    await this.flush();
    return eventsBefore(this.db, stream, types, beforeSeq, limit);
  }

  /** The id of a run's first event in a stream, including events not yet written; null when it has none. */
  async firstSeqOfRun(stream: string, runId: string): Promise<number | null> {
    await this.flush();
    return firstSeqOfRun(this.db, stream, runId);
  }

  /** The last id handed out in a stream (0 when none). */
  async lastSeq(stream: string): Promise<number> {
    return (await this.counter(stream)).seq;
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
