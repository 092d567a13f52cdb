import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@/contracts/tasks.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';
import { serveOnSocket } from '../events/testing/sse-client.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

describe('bad input never yields a 500', () => {
  const bodies: unknown[] = [
    'not json',
    '{"title": ',
    '[]',
    'null',
    '42',
    '"string"',
    { title: 123 },
    { title: ['a'] },
    { title: { $gt: '' } },
    { title: 'x'.repeat(100_000) },
    { title: 'ok', description: 'y'.repeat(30_000) },
    { title: 'ok', unknown: true },
    { __proto__: { admin: true }, title: 'ok' },
    { title: '\u0000\u202e' },
    { title: { '\u0000key': 'v\u0000', nested: [{ a: '\u0000' }] } },
    { subtasks: [{ id: '\u0000', title: 'x', description: '\u0000', order: 1 }] },
    { status: 'spec', position: -1 },
    { status: 'spec', position: 1.5 },
    { status: 'spec', position: 'first' },
    { name: '' },
    { email: 7, password: [] },
  ];

  it('answers every malformed body with a 4xx error code and message', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', { projectId, title: 'Target' });
    const targets: [string, string][] = [
      ['POST', '/api/tasks'],
      ['PATCH', `/api/tasks/${task.id}`],
      ['PATCH', `/api/tasks/${task.id}/status`],
      ['POST', '/api/projects'],
      ['PATCH', `/api/projects/${projectId}`],
      ['POST', '/api/auth/login'],
      ['POST', '/api/auth/register'],
    ];
    for (const [method, url] of targets) {
      for (const body of bodies) {
        const res = await client.request(method, url, body);
        const label = `${method} ${url} ${JSON.stringify(body).slice(0, 60)}`;
        expect(res.status, label).toBeGreaterThanOrEqual(200);
        expect(res.status, label).toBeLessThan(500);
        if (res.status >= 400)
          expect(res.body, label).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      }
    }
  });

  it('answers a body nested too deep with 400 INVALID_JSON, not a 500', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<Task>('/api/tasks', { projectId, title: 'Deep' });
    const nested = (depth: number) => `{"title":{"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    for (const depth of [100_000, 63]) {
      const res = await client.request('PATCH', `/api/tasks/${task.id}`, nested(depth));
      expect(res.status, `depth ${depth}`).toBe(400);
      expect(res.body, `depth ${depth}`).toMatchObject({ error: 'INVALID_JSON' });
    }
    // Brackets inside strings are not nesting; a modest depth is parsed (and then refused by the schema).
    const shallow = `{"title":{"x":${'['.repeat(20)}"[[[{{{"${']'.repeat(20)}}}`;
    const parsed = await client.request('PATCH', `/api/tasks/${task.id}`, shallow);
    expect(parsed.status).toBe(400);
    expect(parsed.body).not.toMatchObject({ error: 'INVALID_JSON' });
    const inString = `{"title":"${'[{'.repeat(100)}"}`;
    expect((await client.request('PATCH', `/api/tasks/${task.id}`, inString)).status).toBe(200);
  });

  it('refuses bodies over 1 MiB with 413', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const res = await client.post('/api/tasks', {
      projectId,
      title: 'big',
      description: 'z'.repeat(1_100_000),
    });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
  });

  it('refuses bodies over 1 MiB with 413 over a socket too: declared (Content-Length) or chunked', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const served = await serveOnSocket(t.app);
    try {
      const body = JSON.stringify({ projectId, title: 'big', description: 'z'.repeat(1_100_000) });
      const headers = { 'content-type': 'application/json', cookie: client.cookie };
      const declared = await fetch(`${served.url}/api/tasks`, { method: 'POST', headers, body });
      expect(declared.status).toBe(413);
      expect(await declared.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
      const chunks = new Blob([body]).stream();
      const chunked = await fetch(`${served.url}/api/tasks`, {
        method: 'POST',
        headers,
        body: chunks,
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      const small = JSON.stringify({ projectId, title: 'small' });
      expect((await fetch(`${served.url}/api/tasks`, { method: 'POST', headers, body: small })).status).toBe(
        201,
      );
    } finally {
      await served.close();
    }
  });

  it('answers unknown API routes with a JSON 404', async () => {
    const { client } = await signedInClient(t.app);
    const res = await client.get('/api/nope');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'NOT_FOUND' });
  });
});
