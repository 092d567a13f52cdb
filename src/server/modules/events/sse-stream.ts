import type { StoredEvent } from '@/contracts/pipeline.js';

/** Why a stream ended: the client left, it could not keep up, or the server ended it. */
export type SseCloseReason =
  | 'client'
  | 'slow'
  | 'timeout'
  | 'shutdown'
  | 'session-ended'
  | 'over-cap'
  | 'error'
  /** The stream had nothing more to send (a service's output after its exit). */
  | 'done';

const frames = new WeakMap<StoredEvent, Uint8Array>();

/**
 * An event's SSE frame. The bus hands the same event object to every listener of a stream,
 * so the frame is serialised once and shared by all its clients.
 */
export function frameOf(event: StoredEvent): Uint8Array {
  let frame = frames.get(event);
  if (!frame) {
    // JSON never holds a raw newline, so the data fits on one `data:` line.
    frame = Buffer.from(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`);
    frames.set(event, frame);
  }
  return frame;
}

export const commentFrame = (text: string): Uint8Array => Buffer.from(`: ${text}\n\n`);

/** Streams with frames written since the last flush; all flushed together once per turn of the loop. */
const dirty = new Set<SseStream>();
let scheduled = false;

function flushDirty() {
  scheduled = false;
  const streams = [...dirty];
  dirty.clear();
  for (const stream of streams) stream.flush();
}

/** The part of Node's `ServerResponse` a stream writes to once the app has sent its head. */
export interface SseOutgoing {
  readonly headersSent: boolean;
  readonly writableLength: number;
  /** A write was refused room and 'drain' has not come yet: the client is not reading. */
  readonly writableNeedDrain: boolean;
  write(chunk: Uint8Array): boolean;
  destroy(): void;
  on(event: 'drain', listener: () => void): unknown;
}

export interface SseStreamOptions {
  /** A client whose unsent bytes pass this while live is closed; it resumes with Last-Event-ID. */
  maxQueueBytes: number;
  /**
   * On the Node server, the response: the socket can be cut at once when a stalled client must go,
   * and once the head is out frames are written to it directly rather than through the body.
   */
  outgoing?: SseOutgoing | undefined;
}

/**
 * One client's side of an event stream: the response body. Frames written during a turn of
 * the event loop are queued and handed to the socket as one chunk at the end of the turn,
 * so a client costs one write per turn however many events arrive. The body's queue has no
 * room of its own (high-water mark 0): what the socket has not taken is counted against
 * `maxQueueBytes`.
 *
 * On the Node server the body only carries the first frames: once the response's head is sent and
 * the server has written everything the body gave it (it has asked for more since the last chunk),
 * chunks go to the response directly, in order, without a web stream's read per chunk (most of
 * what a write cost with a thousand clients). The server's read stays pending until the stream
 * ends, when the body closes and the server ends the response as before.
 */
export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  /** Resolves with the reason once the stream has ended, for any reason. */
  readonly done: Promise<SseCloseReason>;
  private controller!: ReadableStreamDefaultController<Uint8Array>;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private bounded = false;
  private reason: SseCloseReason | null = null;
  private resolveDone!: (reason: SseCloseReason) => void;
  private wakeWriter: (() => void) | null = null;
  /** The server has read every chunk enqueued so far and asked for the next. */
  private pulled = false;
  /** Set once frames go to the response directly. */
  private direct: SseOutgoing | null = null;

  constructor(private readonly options: SseStreamOptions) {
    this.done = new Promise((resolve) => {
      this.resolveDone = resolve;
    });
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          this.pulled = true;
          this.wake();
        },
        cancel: () => this.finish('client'),
      },
      { highWaterMark: 0, size: (chunk) => chunk.byteLength },
    );
  }

  get closed(): boolean {
    return this.reason !== null;
  }

  /** Bytes written but not yet taken by the socket. */
  get queuedBytes(): number {
    if (this.direct) return this.pendingBytes + this.direct.writableLength;
    return this.pendingBytes + Math.max(0, -(this.controller.desiredSize ?? 0));
  }

  /** Queues a frame; it goes out with the others of this turn. */
  write(frame: Uint8Array): void {
    if (this.reason) return;
    this.pending.push(frame);
    this.pendingBytes += frame.byteLength;
    dirty.add(this);
    if (!scheduled) {
      scheduled = true;
      setImmediate(flushDirty);
    }
  }

  /** From now on a backlog past `maxQueueBytes` closes the stream (catching up is paced instead). */
  goLive(): void {
    this.bounded = true;
  }

  /** Hands what is queued to the socket as one chunk. */
  flush(): void {
    dirty.delete(this);
    if (this.reason || this.pending.length === 0) return;
    const chunk = this.pending.length === 1 ? (this.pending[0] as Uint8Array) : Buffer.concat(this.pending);
    const backlog = this.queuedBytes - this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
    if (this.bounded && backlog > 0 && backlog + chunk.byteLength > this.options.maxQueueBytes) {
      this.drop();
      return;
    }
    const outgoing = this.direct ?? this.goDirect();
    if (outgoing) {
      outgoing.write(chunk);
      return;
    }
    this.pulled = false;
    this.controller.enqueue(chunk);
  }

  /** The response, once writing to it directly keeps the order: head sent, every chunk read. */
  private goDirect(): SseOutgoing | null {
    const outgoing = this.options.outgoing;
    if (!outgoing?.headersSent || !this.pulled) return null;
    this.direct = outgoing;
    outgoing.on('drain', () => this.wake());
    return outgoing;
  }

  /** Waits until the socket has taken most of the backlog (or the stream ended). */
  async drained(): Promise<void> {
    this.flush();
    while (!this.reason && this.queuedBytes > this.options.maxQueueBytes / 2) {
      await new Promise<void>((resolve) => {
        this.wakeWriter = resolve;
      });
    }
  }

  /**
   * Ends the stream after what is queued; a stalled client is cut off instead, unless `cutStalled`
   * is false (a stream that ends on its own right after its last frames: the socket has simply
   * not taken them yet).
   */
  end(reason: SseCloseReason, cutStalled = true): void {
    if (this.reason) return;
    this.flush();
    // Still queued in the body, or written to a response that is waiting for room: not reading.
    const stalled = cutStalled && (this.direct ? this.direct.writableNeedDrain : this.queuedBytes > 0);
    this.finish(reason);
    this.controller.close();
    if (stalled) this.options.outgoing?.destroy();
  }

  /** A client that cannot keep up: cut off at once; it resumes from its Last-Event-ID. */
  private drop(): void {
    this.finish('slow');
    if (this.options.outgoing) this.options.outgoing.destroy();
    else this.controller.error(new Error('SSE client too slow'));
  }

  private finish(reason: SseCloseReason): void {
    if (this.reason) return;
    this.reason = reason;
    this.pending = [];
    this.pendingBytes = 0;
    dirty.delete(this);
    this.wake();
    this.resolveDone(reason);
  }

  private wake(): void {
    const wake = this.wakeWriter;
    this.wakeWriter = null;
    wake?.();
  }
}
