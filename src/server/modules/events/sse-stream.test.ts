import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline.js';
import { commentFrame, frameOf, type SseOutgoing, SseStream } from './sse-stream.js';

const event = (id: number, chunk: string): StoredEvent => ({
  id,
  type: 'agent-log',
  data: { runId: '', agent: 'coder', chunk, timestamp: id },
});
const text = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('utf8');

describe('frameOf', () => {
  it('serialises an event once, whoever asks', () => {
    const shared = event(7, 'hello\nworld');
    const frame = frameOf(shared);
    expect(frameOf(shared)).toBe(frame);
    expect(text(frame)).toBe(
      'id: 7\nevent: agent-log\ndata: {"runId":"","agent":"coder","chunk":"hello\\nworld","timestamp":7}\n\n',
    );
  });
});

describe('SseStream', () => {
  it('hands the frames of one turn of the event loop to the socket as one chunk', async () => {
    const out = new SseStream({ maxQueueBytes: 1024 * 1024 });
    const reader = out.body.getReader();
    for (let i = 1; i <= 50; i++) out.write(frameOf(event(i, `c${i}`)));
    const first = await reader.read();
    expect(text(first.value).match(/^id: /gm)).toHaveLength(50);
    out.write(commentFrame('keepalive'));
    expect(text((await reader.read()).value)).toBe(': keepalive\n\n');
    out.end('timeout');
    expect((await reader.read()).done).toBe(true);
    expect(await out.done).toBe('timeout');
  });

  it('closes a live client whose unread backlog passes the bound, and not one catching up', async () => {
    const out = new SseStream({ maxQueueBytes: 4096 });
    const big = Buffer.alloc(3000, 'x');
    // Catching up (not live yet): the backlog may grow; the pump paces itself with drained().
    out.write(big);
    out.flush();
    out.write(big);
    out.flush();
    expect(out.closed).toBe(false);
    out.goLive();
    out.write(big);
    out.flush();
    expect(out.closed).toBe(true);
    expect(await out.done).toBe('slow');
  });

  it('writes to the response itself once its head is out and the body has been read, in order', async () => {
    const written: string[] = [];
    let drain = () => {};
    const response = {
      headersSent: false as boolean,
      writableLength: 0,
      writableNeedDrain: false,
      write: (chunk: Uint8Array) => written.push(text(chunk)) > 0,
      destroy: () => {},
      on: (_event: 'drain', listener: () => void) => {
        drain = listener;
      },
    } satisfies SseOutgoing;
    const out = new SseStream({ maxQueueBytes: 1024 * 1024, outgoing: response });
    const reader = out.body.getReader();
    // Before the head is sent, frames go through the body, as the server reads them.
    out.write(commentFrame('connected'));
    out.flush();
    expect(text((await reader.read()).value)).toBe(': connected\n\n');
    response.headersSent = true;
    out.write(frameOf(event(1, 'a')));
    out.flush();
    // The server had not asked for more since its last chunk: this one still goes through the body.
    expect(written).toEqual([]);
    expect(text((await reader.read()).value)).toContain('id: 1\n');
    // It has now written everything and waits for the next chunk: from here frames skip the body.
    const pending = reader.read();
    out.write(frameOf(event(2, 'b')));
    out.write(frameOf(event(3, 'c')));
    out.flush();
    expect(written).toHaveLength(1);
    expect(written[0]?.match(/^id: \d+/gm)).toEqual(['id: 2', 'id: 3']);
    // Its backlog is the response's, and its 'drain' wakes a writer waiting for room.
    response.writableLength = 800_000;
    let drained = false;
    const waiting = out.drained().then(() => {
      drained = true;
    });
    await Promise.resolve();
    expect(drained).toBe(false);
    response.writableLength = 0;
    drain();
    await waiting;
    // The end closes the body: the server's pending read ends, and it ends the response.
    out.end('timeout');
    expect((await pending).done).toBe(true);
    expect(written).toHaveLength(1);
  });
});
