import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { App } from '@/server/app.js';

/** One block of an event stream: an event (id, event, data) or a comment line. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Longest wait for the next frame; a bound against hangs, never an assertion on speed. */
const FRAME_LIMIT_MS = 90_000;

/** The app on a real loopback socket, as the browser reaches it. */
export async function serveOnSocket(app: App): Promise<{ url: string; close(): Promise<void> }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function parseBlock(block: string): SseFrame | null {
  const frame: SseFrame = {};
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    else if (line.startsWith('id:')) frame.id = line.slice(3).trim();
    else if (line.startsWith('event:')) frame.event = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
  }
  if (data.length) frame.data = data.join('\n');
  return Object.keys(frame).length ? frame : null;
}

/** A client of one event stream over a real connection, read frame by frame. */
export class SseConnection {
  private buffer = '';
  private readonly decoder = new TextDecoder();
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  /** Event frames received so far (comments left out). */
  readonly events: SseFrame[] = [];

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    if (!response.body) throw new Error('no body');
    this.reader = response.body.getReader();
  }

  static async open(url: string, headers: Record<string, string>): Promise<SseConnection> {
    const controller = new AbortController();
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream', ...headers },
      signal: controller.signal,
    });
    return new SseConnection(response, controller);
  }

  /** The next frame, or null when the server ended the stream. */
  async next(): Promise<SseFrame | null> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 2);
        const frame = parseBlock(block);
        if (!frame) continue;
        if (!frame.comment || frame.event) this.events.push(frame);
        return frame;
      }
      let timer: NodeJS.Timeout | undefined;
      const chunk = await Promise.race([
        this.reader.read(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error('no frame arrived')), FRAME_LIMIT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
      if (chunk.done) return null;
      this.buffer += this.decoder.decode(chunk.value, { stream: true }).replace(/\r\n/g, '\n');
    }
  }

  /** Reads frames until one matches; returns it (null if the stream ended first). */
  async until(match: (frame: SseFrame) => boolean): Promise<SseFrame | null> {
    for (;;) {
      const frame = await this.next();
      if (!frame || match(frame)) return frame;
    }
  }

  /** Drops the connection, as a closed tab or a lost network does. */
  close(): void {
    this.controller.abort();
    void this.reader.cancel().catch(() => undefined);
  }

  get ids(): number[] {
    return this.events.flatMap((frame) => (frame.id ? [Number(frame.id)] : []));
  }
}

/** Waits (bounded) until `check` holds; for state that settles after a disconnect. */
export async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > FRAME_LIMIT_MS / 10) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
