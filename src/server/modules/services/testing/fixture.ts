import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { createAppServer } from '@/server/http/app-server.js';
import {
  createTestApp,
  signedInClient,
  type TestApp,
  type TestAppOptions,
} from '@/server/testing/test-app.js';
import { SERVICES_DIR } from '../discovery.js';

/** The real app on a real loopback socket, served as main.ts serves it (createAppServer). */
export interface ServedApp {
  t: TestApp;
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  close(): Promise<void>;
}

export async function serveTestApp(options: TestAppOptions = {}): Promise<ServedApp> {
  const t = await createTestApp({
    ...options,
    runtime: {
      services: { startTimeoutMs: 20_000, keepStoppedMs: 30_000, watchMs: 200 },
      ...options.runtime,
    },
  });
  const server = createAppServer(t.deps, t.app.fetch, () => ({
    own: new Set(),
    ownOnAnyPort: new Set(['localhost', '127.0.0.1']),
    baseDomain: 'localhost',
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    t,
    port,
    base: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await t.close();
    },
  };
}

/** A signed-in user of the served app, with their project's checkout and its workspace id. */
export async function userWithWorkspace(served: ServedApp) {
  const user = await signedInClient(served.t.app);
  const list = await user.client.get<{ workspaces: { id: string; kind: string }[] }>(
    `/api/projects/${user.projectId}/workspaces`,
  );
  const workspaceId = list.body.workspaces.find((w) => w.kind === 'project')?.id;
  if (!workspaceId) throw new Error(`no project workspace: ${JSON.stringify(list.body)}`);
  const repoPath = path.join(served.t.deps.dataDir, 'repos', user.projectId);
  return {
    ...user,
    cookie: user.client.cookie,
    workspaceId,
    repoPath,
    api: `/api/workspaces/${workspaceId}/services`,
  };
}

/** Writes `.discobot/services/<id>` into a checkout (executable unless `mode` says otherwise). */
export async function writeService(
  checkout: string,
  id: string,
  content: string,
  mode = 0o755,
): Promise<string> {
  const dir = path.join(checkout, SERVICES_DIR);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, id);
  await writeFile(file, content);
  await chmod(file, mode);
  return file;
}

const wsModule = createRequire(import.meta.url).resolve('ws');

/**
 * A Node service: answers every request with what it received (method, url, headers, body),
 * `/redirect` with a 302, `/stream` in three slow chunks, `/break` with half an answer and a
 * reset connection, and echoes WebSocket messages.
 * `frontMatter` is placed after the shebang as given; with `listenWhen`, it listens only once
 * that file exists in its working directory.
 */
export function echoService(frontMatter: string, options: { listenWhen?: string } = {}): string {
  const listen = options.listenWhen
    ? `const wait = () => (require('node:fs').existsSync(${JSON.stringify(options.listenWhen)}) ? listen() : setTimeout(wait, 20));
wait();`
    : 'listen();';
  return `#!/usr/bin/env node
${frontMatter}
const http = require('node:http');
const { WebSocketServer } = require(${JSON.stringify(wsModule)});
const server = http.createServer((req, res) => {
  if (req.url === '/redirect') { res.writeHead(302, { location: '/elsewhere' }); res.end(); return; }
  if (req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'text/plain' });
    let i = 0;
    const timer = setInterval(() => { res.write('tick ' + i + '\\n'); if (++i === 3) { clearInterval(timer); res.end(); } }, 150);
    return;
  }
  if (req.url === '/break') {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '100' });
    res.write('half of it');
    setTimeout(() => res.socket.destroy(), 50);
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': ['svc=1; Path=/', 'autocoder_session=stolen; Path=/'] });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
  });
});
const sockets = new WebSocketServer({ server });
sockets.on('headers', (headers) => headers.push('Set-Cookie: svc=1; Path=/', 'Set-Cookie: autocoder_session=stolen; Path=/'));
sockets.on('connection', (ws, req) => {
  ws.send('hello ' + req.url + ' cookie=' + (req.headers.cookie || ''));
  ws.on('message', (data) => ws.send('echo:' + data));
});
const listen = () => server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('listening on ' + process.env.PORT));
${listen}
`;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A request over a real socket to 127.0.0.1 with any Host header (fetch will not send one of
 * ours); `body` may be a list of chunks, sent one by one (a streamed request body).
 */
export function rawRequest(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string | string[] },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers ?? {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const chunks = typeof options.body === 'string' ? [options.body] : (options.body ?? []);
    const writeNext = (index: number) => {
      const chunk = chunks[index];
      if (chunk === undefined) {
        req.end();
        return;
      }
      req.write(chunk);
      setTimeout(() => writeNext(index + 1), 20);
    };
    writeNext(0);
  });
}

/** Polls the service until `done` says yes (a bound against hangs, not a timing assertion). */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  limitMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting; last: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
