// `node --import tsx bench/sse-writes.ts`: the server's CPU per SSE write to a thousand clients,
// with SseStream writing HTTP chunks to each socket itself (what the server does) and with every
// write going through Node's response (what it did before). One process serves, a child process
// reads all the sockets; each way writes ROUNDS frames to every client, one per turn of the loop,
// and the two ways take turns three times. Not a part of `npm run bench`: it checks one choice
// of sse-stream.ts (see docs/architecture.md, "SSE").
import { fork } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import type { StoredEvent } from '../src/contracts/pipeline.js';
import {
  commentFrame,
  frameOf,
  type SseOutgoing,
  SseStream,
} from '../src/server/modules/events/sse-stream.js';

const CLIENTS = Number(process.env.BENCH_SSE_WRITES_CLIENTS ?? 1000);
const ROUNDS = Number(process.env.BENCH_SSE_WRITES_ROUNDS ?? 200);

if (process.argv[2] === 'reader') {
  // The clients: bare sockets that read and drop what comes.
  const net = await import('node:net');
  const port = Number(process.argv[3]);
  for (let i = 0; i < CLIENTS; i++) {
    const socket = net.connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n'));
    socket.on('data', () => {});
  }
} else {
  await main();
}

/** A response as SseStream sees it without its socket: every write goes through the response. */
function throughResponse(res: http.ServerResponse): SseOutgoing {
  return {
    get headersSent() {
      return res.headersSent;
    },
    get writableLength() {
      return res.writableLength;
    },
    get writableNeedDrain() {
      return res.writableNeedDrain;
    },
    write: (chunk) => res.write(chunk),
    destroy: () => res.destroy(),
    on: (event, listener) => res.on(event, listener),
  };
}

async function main() {
  const responses: http.ServerResponse[] = [];
  let connected: () => void = () => {};
  const allConnected = new Promise<void>((resolve) => {
    connected = resolve;
  });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    responses.push(res);
    if (responses.length === CLIENTS) connected();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const reader = fork(new URL(import.meta.url), ['reader', String((server.address() as AddressInfo).port)], {
    execArgv: ['--import', 'tsx'],
  });
  await allConnected;

  const open = (way: 'socket' | 'response') =>
    responses.map((res) => {
      const out = new SseStream({
        maxQueueBytes: 4 * 1024 * 1024,
        outgoing: way === 'socket' ? res : throughResponse(res),
      });
      // As @hono/node-server reads a web body: each chunk written, then (never here) the end.
      void (async () => {
        const body = out.body.getReader();
        for (;;) {
          const { done, value } = await body.read();
          if (done) return;
          res.write(value);
        }
      })();
      return out;
    });

  let id = 0;
  const event = (): StoredEvent => ({
    id: ++id,
    type: 'agent-log',
    data: { runId: '0'.repeat(36), agent: 'coder', chunk: 'x'.repeat(96), timestamp: Date.now() },
  });
  const measure = async (way: 'socket' | 'response') => {
    const streams = open(way);
    for (const stream of streams) stream.write(commentFrame('connected'));
    for (let i = 0; i < 3; i++) await turn();
    const before = process.cpuUsage();
    for (let round = 0; round < ROUNDS; round++) {
      const frame = frameOf(event());
      for (const stream of streams) stream.write(frame);
      await turn();
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    const used = process.cpuUsage(before);
    for (const stream of streams) stream.end('done', false);
    return (used.user + used.system) / (CLIENTS * ROUNDS);
  };

  const results: Record<'socket' | 'response', number[]> = { socket: [], response: [] };
  for (let i = 0; i < 3; i++) {
    results.response.push(await measure('response'));
    results.socket.push(await measure('socket'));
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const response = median(results.response);
  const socket = median(results.socket);
  console.log(
    `SSE writes, ${CLIENTS} clients × ${ROUNDS} frames, three turns each, server CPU per write (median):`,
  );
  console.log(`  through Node's response  ${response.toFixed(2)} µs`);
  console.log(
    `  HTTP chunks to the socket ${socket.toFixed(2)} µs  (${Math.round((response / socket - 1) * 100)} % more through the response)`,
  );
  reader.kill();
  server.closeAllConnections();
  server.close();
}
