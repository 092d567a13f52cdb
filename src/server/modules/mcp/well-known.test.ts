import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TestClient } from '@/server/testing/test-app.js';

const PAGE = '<!doctype html><title>AutoCoder</title>';

/** The app as the server runs it, serving a built web app, whose page answers client-side routes. */
describe('/.well-known', () => {
  let t: TestApp;
  let webDir: string;
  beforeAll(async () => {
    webDir = await mkdtemp(path.join(tmpdir(), 'autocoder-web-'));
    await writeFile(path.join(webDir, 'index.html'), PAGE);
    t = await createTestApp({ app: { webDir } });
  });
  afterAll(async () => {
    await t.close();
    await rm(webDir, { recursive: true, force: true });
  });

  it('answers the OAuth discovery an MCP client tries with a JSON 404, not the web app’s page', async () => {
    const client = new TestClient(t.app);
    for (const url of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const res = await client.get(url);
      expect({ url, status: res.status, type: res.headers.get('content-type') }).toEqual({
        url,
        status: 404,
        type: 'application/json',
      });
      expect(res.body).toEqual({ error: 'NOT_FOUND', message: expect.stringContaining('/.well-known') });
    }
    // The client-side routes still load the page (the fallback the 404 comes before).
    const page = await client.get('/projects/anything');
    expect(page.status).toBe(200);
    expect(page.body).toBe(PAGE);
  });
});
