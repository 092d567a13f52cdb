import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLockStore } from '../modules/coordination/memory-lock-store.js';
import {
  type AgentClient,
  fx,
  newAgent,
  useCoordinationApp,
} from '../modules/coordination/testing/fixture.js';
import { type ServedByNode, serveAsMain } from './testing/served-app.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface NodeAnswer extends Answer {
  /** Its Content-Length: every answer says it. */
  length: number;
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

/**
 * The agents' REST calls as main.ts serves them: answered below Hono when everything checks out,
 * with what the app itself answers, byte for byte; everything else is handed to the app.
 */
describe('agents’ calls answered by the node server', () => {
  useCoordinationApp(createMemoryLockStore);
  let server: ServedByNode;
  let writer: AgentClient;
  let reader: AgentClient;

  beforeAll(async () => {
    server = await serveAsMain(fx.t);
    writer = await newAgent('node-writer');
    reader = await newAgent('node-reader');
  });
  afterAll(async () => {
    await server.close();
  });

  /** Over the socket; `host` and the body's length are sent as given. */
  function viaNode(path: string, headers: Record<string, string>, body: string): Promise<NodeAnswer> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${server.url}${path}`, { method: 'POST', headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: comparable(Object.entries(res.headers)),
            body: text,
            length: Number(res.headers['content-length']),
          });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  /** The same request to the app in-process (Hono alone). */
  async function viaApp(path: string, headers: Record<string, string>, body: string): Promise<Answer> {
    const res = await fx.t.app.request(`http://localhost${path}`, {
      method: 'POST',
      headers: { ...headers, host: 'localhost' },
      body,
    });
    return { status: res.status, headers: comparable(res.headers.entries()), body: await res.text() };
  }

  const bearer = (agent: AgentClient, extra: Record<string, string> = {}) => ({
    authorization: `Bearer ${agent.token}`,
    'content-type': 'application/json',
    ...extra,
  });
  const checkBody = (files: string[]) =>
    JSON.stringify({ repo_url: fx.cloneUrl, branch: 'main', file_paths: files });
  const postBody = (files: string[], status: string) =>
    JSON.stringify({
      repo_url: fx.cloneUrl,
      branch: 'main',
      file_paths: files,
      status,
      message: 'Edit the db.',
    });

  /** Sends one request both ways: the answers must be the same, the node's without the app (or with it). */
  async function same(
    path: string,
    headers: Record<string, string>,
    body: string,
    answeredBy: 'node' | 'app',
  ) {
    const before = server.appRequests();
    const { length, ...node } = await viaNode(path, headers, body);
    expect(server.appRequests() - before, `${path} answered by the ${answeredBy}`).toBe(
      answeredBy === 'app' ? 1 : 0,
    );
    expect(length).toBe(Buffer.byteLength(node.body));
    const app = await viaApp(path, headers, body);
    expect(node).toEqual(app);
    return node;
  }

  it('answers check_status and post_status as the app does, without it', async () => {
    const ok = await same('/api/check_status', bearer(reader), checkBody(['src/auth.ts']), 'node');
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ status: 'OK' });
    expect(ok.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    const took = await viaNode('/api/post_status', bearer(writer), postBody(['src/db.ts'], 'WRITING'));
    expect(JSON.parse(took.body)).toMatchObject({ success: true, orchestration: { action: 'PROCEED' } });
    const conflict = await same('/api/check_status', bearer(reader), checkBody(['src/auth.ts']), 'node');
    expect(JSON.parse(conflict.body)).toMatchObject({ status: 'CONFLICT' });
    const wait = await same('/api/post_status', bearer(reader), postBody(['src/db.ts'], 'WRITING'), 'node');
    expect(JSON.parse(wait.body)).toMatchObject({ success: false, orchestration: { action: 'WAIT' } });
    // A media type with parameters, and normalized input (paths, an upper-case head) alike.
    const spelt = JSON.stringify({
      repo_url: ` ${fx.cloneUrl} `,
      branch: 'main',
      file_paths: ['./src//auth.ts', 'src/auth.ts'],
      agent_head: fx.head0.toUpperCase(),
    });
    await same(
      '/api/check_status',
      bearer(reader, { 'content-type': 'application/json; charset=utf-8' }),
      spelt,
      'node',
    );
  });

  it('answers a rule’s refusal with the app’s error body', async () => {
    const unknown = JSON.stringify({
      repo_url: 'https://example.com/nobody.git',
      branch: 'main',
      file_paths: [],
    });
    const answer = await same('/api/check_status', bearer(reader), unknown, 'node');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ error: 'REPO_NOT_FOUND' });
  });

  it('hands the app bad bodies, once read, for its 400s', async () => {
    const notJson = await same('/api/check_status', bearer(reader), '{"repo_url":', 'app');
    expect(JSON.parse(notJson.body)).toMatchObject({ error: 'INVALID_JSON' });
    const deep = await same('/api/check_status', bearer(reader), `${'['.repeat(80)}${']'.repeat(80)}`, 'app');
    expect(JSON.parse(deep.body)).toMatchObject({ error: 'INVALID_JSON' });
    const invalid = await same(
      '/api/post_status',
      bearer(reader),
      postBody(['../etc/passwd'], 'WRITING'),
      'app',
    );
    expect(JSON.parse(invalid.body)).toMatchObject({ error: 'VALIDATION_ERROR' });
    const empty = await same('/api/check_status', bearer(reader), '', 'app');
    expect(JSON.parse(empty.body)).toMatchObject({ error: 'VALIDATION_ERROR' });
  });

  it('leaves to the app what it does not answer plainly: sessions, bad tokens, origins, hosts, media types', async () => {
    const body = checkBody(['src/other.ts']);
    const session = await same(
      '/api/check_status',
      { cookie: fx.owner.cookie, 'content-type': 'application/json' },
      body,
      'app',
    );
    expect(session.status).toBe(200);
    const badToken = await same(
      '/api/check_status',
      bearer(reader, { authorization: 'Bearer acat_nope' }),
      body,
      'app',
    );
    expect(badToken.status).toBe(401);
    const origin = await same(
      '/api/check_status',
      bearer(reader, { origin: 'http://evil.example' }),
      body,
      'app',
    );
    expect(origin.status).toBe(403);
    const text = await same(
      '/api/check_status',
      bearer(reader, { 'content-type': 'text/plain' }),
      body,
      'app',
    );
    expect(text.status).toBe(415);
    const before = server.appRequests();
    const rebound = await viaNode('/api/check_status', bearer(reader, { host: 'evil.example' }), body);
    expect(rebound.status).toBe(421);
    expect(server.appRequests() - before).toBe(1);
  });

  it('answers MCP posts as the app’s /mcp route does, without it', async () => {
    const mcp = (extra: Record<string, string> = {}) =>
      bearer(reader, { accept: 'application/json, text/event-stream', ...extra });
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const listed = await same('/mcp', mcp(), list, 'node');
    expect(JSON.parse(listed.body)).toMatchObject({ id: 1, result: { tools: expect.any(Array) } });
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 'c1',
      method: 'tools/call',
      params: {
        name: 'check_status',
        arguments: { repo_url: fx.cloneUrl, branch: 'main', file_paths: ['src/app.ts'] },
      },
    });
    const called = await same('/mcp', mcp(), call, 'node');
    expect(JSON.parse(called.body)).toMatchObject({
      id: 'c1',
      result: { structuredContent: { status: 'OK' } },
    });
    expect((await same('/mcp', mcp({ accept: 'application/json' }), list, 'node')).status).toBe(406);
    expect((await same('/mcp', mcp({ 'mcp-protocol-version': '1999-01-01' }), list, 'node')).status).toBe(
      400,
    );
    expect((await same('/mcp', mcp(), '{"jsonrpc":"2.0"', 'node')).status).toBe(400);
    expect((await same('/mcp', mcp(), '{"jsonrpc":"1.0","id":1}', 'node')).status).toBe(400);
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect((await same('/mcp', mcp(), note, 'node')).status).toBe(202);
    expect((await same('/mcp', { 'content-type': 'application/json' }, list, 'node')).status).toBe(401);
  });
});
