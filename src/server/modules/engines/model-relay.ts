import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { listeners } from './listening.js';

/**
 * Where a coding agent engine's model requests go, and with which credential. The engine inside
 * the sandbox holds a placeholder: the relay replaces the credential headers with the real ones,
 * so the person's key never enters the sandbox.
 */
export interface RelayTarget {
  /** The endpoint's root requests are forwarded under (`https://api.anthropic.com`, `https://host/v1`). */
  baseUrl: string;
  /** The path prefix the engine puts before its requests (`/v1` for Codex's `…/v1/responses`), cut before forwarding. */
  enginePrefix: string;
  /** Headers set on every forwarded request (the credential, the simulator's run id). */
  headers: Record<string, string>;
  /** The fetch for the target (a guarded one when a user typed the URL). */
  fetch?: typeof fetch | undefined;
}

export interface RelayStats {
  requests: number;
  /** Bytes of requests and answers carried. */
  bytesUp: number;
  bytesDown: number;
  /** The last answer the endpoint refused with (status and the start of its body, for the step's error). */
  lastRefusal?: { status: number; body: string } | undefined;
}

export interface ModelRelay {
  /** Serves on a Unix socket (a sandbox's relay, bwrap mode). */
  listen(socketPath: string): Promise<void>;
  /** Serves on 127.0.0.1 (host mode, where the engine reaches loopback itself); the port. */
  listenLoopback(): Promise<number>;
  readonly stats: RelayStats;
  close(): Promise<void>;
}

/** Largest request an engine may send (a long conversation with its tools), in bytes. */
const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
/** Headers of the engine's request never passed on: hop-by-hop ones, and every credential. */
const DROPPED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'accept-encoding',
  'authorization',
  'x-api-key',
  'cookie',
]);
/** Start of a refused answer kept for the step's error message. */
const REFUSAL_CHARS = 600;

/**
 * A relay from a coding agent engine to its model endpoint, run by the server: the engine's only
 * way out of its sandbox besides the project's allow-list. It forwards the engine's requests under
 * `enginePrefix` to the target with the real credential, streams the answers back, and counts what
 * it carried.
 */
export function createModelRelay(target: RelayTarget): ModelRelay {
  const stats: RelayStats = { requests: 0, bytesUp: 0, bytesDown: 0 };
  const active = new Set<AbortController>();
  const doFetch = target.fetch ?? fetch;
  const base = target.baseUrl.replace(/\/+$/, '');

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = req.url ?? '/';
    if (req.method === 'HEAD' && (url === '/' || url === '')) {
      // Claude Code checks that its endpoint answers before it starts.
      res.writeHead(200).end();
      return;
    }
    if (!url.startsWith(`${target.enginePrefix}/`)) {
      send(res, 404, `The model relay forwards ${target.enginePrefix || ''}/… only`);
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > MAX_REQUEST_BYTES) {
      send(res, 413, 'Request too large for the model relay');
      return;
    }
    stats.requests++;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (DROPPED.has(name) || value === undefined) continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    for (const [name, value] of Object.entries(target.headers)) headers.set(name, value);
    headers.set('accept-encoding', 'identity');
    const abort = new AbortController();
    active.add(abort);
    res.on('close', () => abort.abort());
    try {
      const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
      const body = hasBody ? await readBody(req) : undefined;
      if (body === null) {
        send(res, 413, 'Request too large for the model relay');
        return;
      }
      if (body) stats.bytesUp += body.length;
      const answer = await doFetch(`${base}${url.slice(target.enginePrefix.length)}`, {
        method: req.method ?? 'GET',
        headers,
        ...(body ? { body: new Uint8Array(body) } : {}),
        signal: abort.signal,
        redirect: 'manual',
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((value, name) => {
        if (!DROPPED.has(name) && name !== 'content-encoding' && name !== 'set-cookie') out[name] = value;
      });
      res.writeHead(answer.status, out);
      const refused = answer.status >= 400;
      if (refused) stats.lastRefusal = { status: answer.status, body: '' };
      if (!answer.body) {
        res.end();
        return;
      }
      // Streamed through whatever its size; of a refusal, only its start is kept (for the step's error).
      const counted = Readable.fromWeb(answer.body as import('node:stream/web').ReadableStream);
      counted.on('data', (chunk: Buffer) => {
        stats.bytesDown += chunk.length;
        const kept = stats.lastRefusal;
        if (refused && kept && kept.body.length < REFUSAL_CHARS) {
          kept.body = (kept.body + chunk.toString('utf8')).slice(0, REFUSAL_CHARS);
        }
      });
      await pipeline(counted, res);
    } catch (error) {
      if (res.headersSent) res.destroy();
      else send(res, 502, `The model relay could not reach the endpoint: ${(error as Error).message}`);
    } finally {
      active.delete(abort);
    }
  }

  const served = listeners(() => {
    const server = createServer((req, res) => void handle(req, res));
    // A stream may pause for minutes between events (a long tool run on the model's side).
    server.requestTimeout = 0;
    server.headersTimeout = 60_000;
    return server;
  });

  return {
    stats,
    listen: served.listen,
    listenLoopback: served.listenLoopback,
    async close() {
      for (const abort of active) abort.abort();
      await served.close();
    },
  };
}

/** The request's body, or null past MAX_REQUEST_BYTES. */
async function readBody(req: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ type: 'error', error: { type: 'relay_error', message } }));
}
