import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline.js';
import { commentFrame, frameOf, SseStream } from './sse-stream.js';

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
});
