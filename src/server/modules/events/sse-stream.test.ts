import http from 'node:http';
import net from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline.js';
import { commentFrame, frameOf, type SseOutgoing, type SseSocket, SseStream } from './sse-stream.js';

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

  it("then writes HTTP chunks to a chunked response's socket itself, one per client turn, shared by clients", async () => {
    const fakeSocket = () => {
      const socket = {
        written: [] as Uint8Array[],
        listeners: 0,
        writableLength: 0,
        writableNeedDrain: false,
        write: (chunk: Uint8Array) => socket.written.push(chunk) > 0,
        on: () => {
          socket.listeners += 1;
        },
        off: () => {
          socket.listeners -= 1;
        },
      };
      return socket satisfies SseSocket;
    };
    const open = async (chunkedEncoding: boolean) => {
      const socket = fakeSocket();
      const through: string[] = [];
      const response = {
        headersSent: true,
        chunkedEncoding,
        socket,
        get writableLength() {
          return socket.writableLength;
        },
        writableNeedDrain: false,
        write: (chunk: Uint8Array) => through.push(text(chunk)) > 0,
        destroy: () => {},
        on: () => {},
      } satisfies SseOutgoing;
      const out = new SseStream({ maxQueueBytes: 1024 * 1024, outgoing: response });
      const reader = out.body.getReader();
      void reader.read(); // the server waits for the body's first chunk: frames now skip the body
      await turn();
      return { out, socket, through };
    };
    const a = await open(true);
    const b = await open(true);
    const first = frameOf(event(1, 'a'));
    for (const { out } of [a, b]) {
      out.write(first);
      out.flush();
    }
    // The first write goes through the response (it sends the head if need be), the next to the socket.
    expect(a.through).toEqual([text(first)]);
    const second = frameOf(event(2, 'b'));
    for (const { out } of [a, b]) {
      out.write(second);
      out.flush();
    }
    expect(a.socket.written).toHaveLength(1);
    expect(text(a.socket.written[0])).toBe(`${second.byteLength.toString(16)}\r\n${text(second)}\r\n`);
    expect(b.socket.written[0], 'one chunk for every client of a frame').toBe(a.socket.written[0]);
    // Frames of one turn: one chunk holding them all.
    a.out.write(frameOf(event(3, 'c')));
    a.out.write(frameOf(event(4, 'd')));
    a.out.flush();
    const both = text(a.socket.written[1]);
    const size = Number.parseInt(both.slice(0, both.indexOf('\r\n')), 16);
    expect(both.slice(both.indexOf('\r\n') + 2, -2).length).toBe(size);
    expect(both.match(/^id: \d+/gm)).toEqual(['id: 3', 'id: 4']);
    // A stalled socket is the client's stall; the end lets go of the socket's drain.
    expect(a.socket.listeners).toBe(1);
    a.out.end('timeout', false);
    expect(a.socket.listeners).toBe(0);
    // A body not sent in chunks keeps going through the response.
    const plain = await open(false);
    for (const id of [5, 6]) {
      plain.out.write(frameOf(event(id, 'e')));
      plain.out.flush();
    }
    expect(plain.socket.written).toEqual([]);
    expect(plain.through).toHaveLength(2);
  });

  it('sends, over a real connection, a chunked body any HTTP client reads, and the connection serves the next request', async () => {
    const server = http.createServer((req, res) => {
      if (req.url !== '/sse') {
        res.end('next');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const out = new SseStream({ maxQueueBytes: 1024 * 1024, outgoing: res });
      // As @hono/node-server does with a web body: each chunk written, then the response ended.
      void (async () => {
        const reader = out.body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
        res.end();
      })();
      void (async () => {
        out.write(commentFrame('connected'));
        for (let id = 1; id <= 60; id++) {
          out.write(frameOf(event(id, `chunk ${id} `.repeat(id % 7))));
          if (id % 3 === 0) await turn();
        }
        await turn();
        out.end('done', false);
      })();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    try {
      const socket = net.connect(port, '127.0.0.1');
      let received = Buffer.alloc(0);
      socket.on('data', (data: Buffer) => {
        received = Buffer.concat([received, data]);
      });
      socket.write('GET /sse HTTP/1.1\r\nhost: x\r\n\r\n');
      await vi.waitFor(() => expect(received.includes('0\r\n\r\n')).toBe(true));
      const raw = received.toString('latin1');
      const headEnd = raw.indexOf('\r\n\r\n');
      expect(raw.slice(0, headEnd)).toMatch(/transfer-encoding: chunked/i);
      // Decode the body by the chunked rules: it must come out whole, ending with the last chunk.
      let at = headEnd + 4;
      let body = '';
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', at);
        const size = Number.parseInt(raw.slice(at, lineEnd), 16);
        expect(Number.isNaN(size)).toBe(false);
        at = lineEnd + 2;
        if (size === 0) break;
        body += raw.slice(at, at + size);
        expect(raw.slice(at + size, at + size + 2)).toBe('\r\n');
        at += size + 2;
      }
      expect(raw.slice(at)).toBe('\r\n');
      const ids = body.match(/^id: (\d+)$/gm)?.map((line) => Number(line.slice(4)));
      expect(ids).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      // The same connection answers the next request.
      received = Buffer.alloc(0);
      socket.write('GET /next HTTP/1.1\r\nhost: x\r\n\r\n');
      await vi.waitFor(() => expect(received.toString('latin1')).toMatch(/^HTTP\/1\.1 200[\s\S]*next/));
      socket.destroy();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
