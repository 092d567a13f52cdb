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

/** The part of Node's socket a stream writes HTTP chunks to itself (see `SseStream`). */
export interface SseSocket {
  readonly writableLength: number;
  readonly writableNeedDrain: boolean;
  write(chunk: Uint8Array): boolean;
  on(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
}

/** The part of Node's `ServerResponse` a stream writes to once the app has sent its head. */
export interface SseOutgoing {
  readonly headersSent: boolean;
  /** Bytes the response holds and its socket has not sent. */
  readonly writableLength: number;
  /** A write was refused room and 'drain' has not come yet: the client is not reading. */
  readonly writableNeedDrain: boolean;
  /** Node sends the body in HTTP/1.1 chunks (`Transfer-Encoding: chunked`). */
  readonly chunkedEncoding?: boolean;
  /** Set by Node once this response is the one its connection is sending (not a pipelined one waiting). */
  readonly socket?: SseSocket | null;
  write(chunk: Uint8Array): boolean;
  destroy(): void;
  on(event: 'drain', listener: () => void): unknown;
}

const CRLF = Buffer.from('\r\n');
const httpChunks = new WeakMap<Uint8Array, Uint8Array>();

/**
 * Frames as one HTTP/1.1 chunk (size line, data, CRLF), as Node's response would frame them. A
 * single frame's chunk is built once and shared by every client it goes to, like the frame.
 */
function httpChunk(frames: Uint8Array[], bytes: number): Uint8Array {
  const single = frames.length === 1 ? frames[0] : undefined;
  const known = single && httpChunks.get(single);
  if (known) return known;
  const chunk = Buffer.concat([Buffer.from(`${bytes.toString(16)}\r\n`), ...frames, CRLF]);
  if (single) httpChunks.set(single, chunk);
  return chunk;
}

const joined = (frames: Uint8Array[]): Uint8Array =>
  frames.length === 1 ? (frames[0] as Uint8Array) : Buffer.concat(frames);

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
 *
 * After the first such write (which sends the head, if the server had not), a chunked response
 * that its connection is sending gets its chunks framed here and written to the socket: one
 * buffer, one system call, shared by every client of a frame. Through the response a write cost
 * about 70 % more CPU (its chunk framing in three buffers, and a cork and uncork per write;
 * bench/sse-writes.ts). The bytes on the wire are the same, and the response's own end
 * (`0\r\n\r\n`) follows them in order.
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
  /** Writes through `direct` so far; after the first, chunks may go to its socket. */
  private directWrites = 0;
  /** Set once frames go to the response's socket as HTTP chunks. */
  private socket: SseSocket | null = null;
  private readonly onDrain = () => this.wake();

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
    // The response's count holds its socket's.
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
    const frames = this.pending;
    const bytes = this.pendingBytes;
    const backlog = this.queuedBytes - bytes;
    this.pending = [];
    this.pendingBytes = 0;
    if (this.bounded && backlog > 0 && backlog + bytes > this.options.maxQueueBytes) {
      this.drop();
      return;
    }
    const outgoing = this.direct ?? this.goDirect();
    if (!outgoing) {
      this.pulled = false;
      this.controller.enqueue(joined(frames));
      return;
    }
    const socket = this.socket ?? this.goToSocket(outgoing);
    if (socket) {
      socket.write(httpChunk(frames, bytes));
      return;
    }
    this.directWrites += 1;
    outgoing.write(joined(frames));
  }

  /** The response, once writing to it directly keeps the order: head sent, every chunk read. */
  private goDirect(): SseOutgoing | null {
    const outgoing = this.options.outgoing;
    if (!outgoing?.headersSent || !this.pulled) return null;
    this.direct = outgoing;
    outgoing.on('drain', this.onDrain);
    return outgoing;
  }

  /**
   * The response's socket, once writing HTTP chunks to it keeps the bytes as the response would
   * send them: a chunked body, a write through the response already made (so the head is out), and
   * the connection sending this response, with nothing of it held back.
   */
  private goToSocket(outgoing: SseOutgoing): SseSocket | null {
    const socket = outgoing.socket;
    if (this.directWrites === 0 || outgoing.chunkedEncoding !== true || !socket) return null;
    if (outgoing.writableLength !== socket.writableLength) return null;
    this.socket = socket;
    socket.on('drain', this.onDrain);
    return socket;
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
    const stalled =
      cutStalled &&
      (this.direct
        ? this.direct.writableNeedDrain || Boolean(this.socket?.writableNeedDrain)
        : this.queuedBytes > 0);
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
    // The connection may carry other requests after this one.
    this.socket?.off('drain', this.onDrain);
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
