import { request as httpRequest } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@/contracts/tasks.js';
import { createTestApp, signedInClient, type TestApp, type TestClient } from '../testing/test-app.js';
import { type ServedByNode, serveAsMain } from './testing/served-app.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers that say how the bytes travelled, not what the app answered. */
const TRANSPORT_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
]);

const comparable = (headers: Iterable<[string, string | string[] | undefined]>) =>
  Object.fromEntries(
    [...headers]
      .filter(([name]) => !TRANSPORT_HEADERS.has(name.toLowerCase()))
      .map(([name, value]) => [name.toLowerCase(), String(value)]),
  );

let t: TestApp;
let server: ServedByNode;
let owner: { client: TestClient; projectId: string };

beforeAll(async () => {
  t = await createTestApp();
  server = await serveAsMain(t);
  owner = await signedInClient(t.app, 'board-owner@example.com');
  for (const title of ['First card', 'Second card']) {
    await owner.client.post<Task>('/api/tasks', { projectId: owner.projectId, title, description: 'x' });
  }
});
afterAll(async () => {
  await server.close();
  await t.close();
});

/** Over the socket, as a browser sends it; `host` as given. */
function viaNode(
  path: string,
  headers: Record<string, string>,
  method = 'GET',
): Promise<Answer & { length: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: comparable(Object.entries(res.headers)),
          body: Buffer.concat(chunks),
          length: res.headers['content-length'],
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** The same request to the app in-process (Hono alone). */
async function viaApp(path: string, headers: Record<string, string>, method = 'GET'): Promise<Answer> {
  const res = await t.app.request(`http://localhost${path}`, {
    method,
    headers: { ...headers, host: 'localhost' },
  });
  return {
    status: res.status,
    headers: comparable(res.headers.entries()),
    body: Buffer.from(await res.arrayBuffer()),
  };
}

/** Sends one request both ways: the answers must be the same, the node's without the app (or with it). */
async function same(
  path: string,
  headers: Record<string, string>,
  answeredBy: 'node' | 'app',
  method = 'GET',
) {
  const before = server.appRequests();
  const { length, ...node } = await viaNode(path, headers, method);
  expect(server.appRequests() - before, `${path} answered by the ${answeredBy}`).toBe(
    answeredBy === 'app' ? 1 : 0,
  );
  if (node.status !== 304 && method !== 'HEAD') expect(Number(length)).toBe(node.body.length);
  const app = await viaApp(path, headers, method);
  expect(node).toEqual(app);
  return node;
}

const list = (projectId: string, query = '') => `/api/tasks?projectId=${projectId}${query}`;

describe('the board’s list answered by the node server', () => {
  it('answers the list, gzipped or not, and its revalidation, as the app does, without it', async () => {
    const cookie = owner.client.cookie;
    const plain = await same(list(owner.projectId), { cookie }, 'node');
    expect(plain.status).toBe(200);
    const cards = JSON.parse(plain.body.toString('utf8')) as { tasks: { title: string }[] };
    expect(cards.tasks.map((card) => card.title)).toEqual(['First card', 'Second card']);
    expect(plain.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(plain.headers['cache-control']).toBe('private, no-cache');

    const etag = plain.headers.etag ?? '';
    const notModified = await same(list(owner.projectId), { cookie, 'if-none-match': etag }, 'node');
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);

    // Large enough to be gzipped: the bytes are the same list.
    for (let i = 0; i < 30; i++) {
      await owner.client.post('/api/tasks', {
        projectId: owner.projectId,
        title: `Card ${i}`,
        description: 'y',
      });
    }
    const zipped = await same(
      list(owner.projectId, '&view=cards'),
      { cookie, 'accept-encoding': 'gzip, br' },
      'node',
    );
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(zipped.body).toString('utf8')).tasks).toHaveLength(32);
    // The old version's tag no longer matches: the new list comes back.
    const changed = await same(list(owner.projectId), { cookie, 'if-none-match': etag }, 'node');
    expect(changed.status).toBe(200);
    await same(list(owner.projectId, '&status=backlog&category=feature'), { cookie }, 'node');
  });

  it('leaves to the app what it does not answer plainly', async () => {
    const cookie = owner.client.cookie;
    // No session, an unknown one: 401.
    expect((await same(list(owner.projectId), {}, 'app')).status).toBe(401);
    expect((await same(list(owner.projectId), { cookie: 'autocoder_session=nope' }, 'app')).status).toBe(401);
    // Another user's project, and one that does not exist: 404.
    const other = await signedInClient(t.app, 'board-other@example.com');
    const foreign = await same(list(owner.projectId), { cookie: other.client.cookie }, 'app');
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.body.toString('utf8'))).toMatchObject({ error: 'PROJECT_NOT_FOUND' });
    // Queries the schema refuses, a key given twice, an encoded one (left to the app's decoding).
    expect((await same(list('not-a-uuid'), { cookie }, 'app')).status).toBe(400);
    expect((await same(list(owner.projectId, '&status=nope'), { cookie }, 'app')).status).toBe(400);
    expect((await same(list(owner.projectId, '&extra=1'), { cookie }, 'app')).status).toBe(400);
    expect((await same(list(owner.projectId, '&status=spec&status=done'), { cookie }, 'app')).status).toBe(
      400,
    );
    expect((await same(list(owner.projectId, '&q=First%20card'), { cookie }, 'app')).status).toBe(200);
    expect((await same('/api/tasks', { cookie }, 'app')).status).toBe(400);
    // Other methods and paths.
    await same(list(owner.projectId), { cookie }, 'app', 'HEAD');
    await same(`/api/tasks/${owner.projectId}?x=1`, { cookie }, 'app');
    // A foreign host (DNS rebinding): the app's 421.
    const before = server.appRequests();
    const rebound = await viaNode(list(owner.projectId), { cookie, host: 'evil.example' });
    expect(rebound.status).toBe(421);
    expect(server.appRequests() - before).toBe(1);
  });
});
