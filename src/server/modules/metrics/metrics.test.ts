import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signedInClient, type TestApp, TestClient } from '@/server/testing/test-app.js';

const TOKEN = 'metrics-token-for-tests-0123456789';

describe('GET /api/metrics with AUTOCODER_METRICS_TOKEN set', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ app: { metricsToken: TOKEN } });
  });
  afterAll(() => t.close());

  const scrape = (client: TestClient, headers: Record<string, string> = {}) =>
    client.request<string>('GET', '/api/metrics', undefined, headers);

  it('does not exist without the token, with a wrong one, or for a signed-in user', async () => {
    const anonymous = await scrape(new TestClient(t.app));
    expect(anonymous.status).toBe(404);
    expect(anonymous.body).toMatchObject({ error: 'NOT_FOUND' });
    expect((await scrape(new TestClient(t.app), { authorization: `Bearer ${TOKEN}x` })).status).toBe(404);
    expect((await scrape(new TestClient(t.app), { authorization: TOKEN })).status).toBe(404);
    const { client } = await signedInClient(t.app);
    expect((await scrape(client)).status).toBe(404);
    expect((await scrape(client, { authorization: 'Bearer nope' })).status).toBe(404);
  });

  it('serves the Prometheus text format to the operator', async () => {
    const { client } = await signedInClient(t.app); // some statements to count
    await client.get('/api/projects');
    const res = await scrape(new TestClient(t.app), { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(text).toContain('# TYPE autocoder_db_statements_total counter');
    const statements = Number(/^autocoder_db_statements_total (\d+)$/m.exec(text)?.[1]);
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(t.deps.dbStats.statements);
    expect(text).toMatch(/^autocoder_runs_active 0$/m);
    expect(text).toContain(`autocoder_info{version="test",database="${t.deps.dbKind}"} 1`);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
    expect(text).toMatch(/^autocoder_sse_streams_open 0$/m);
  });

  it('keeps the JSON form for clients that ask for it', async () => {
    const res = await scrape(new TestClient(t.app), {
      authorization: `Bearer ${TOKEN}`,
      accept: 'application/json',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      database: { kind: t.deps.dbKind, statements: expect.any(Number) },
      sse: { open: 0, droppedSlow: 0 },
      runs: { active: 0 },
      process: { rssBytes: expect.any(Number) },
    });
  });
});

describe('GET /api/metrics without AUTOCODER_METRICS_TOKEN', () => {
  it('does not exist, even for a signed-in user', async () => {
    const t = await createTestApp();
    try {
      const { client } = await signedInClient(t.app);
      expect((await client.get('/api/metrics')).status).toBe(404);
      const guess = await client.request('GET', '/api/metrics', undefined, {
        authorization: 'Bearer undefined',
      });
      expect(guess.status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
