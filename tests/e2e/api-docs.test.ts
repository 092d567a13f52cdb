import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, hasChromium, launchBrowser } from './browser.js';

describe.skipIf(!hasChromium)('the API reference page in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-docs-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('renders the document under the page’s policy, fetching nothing from another origin', async () => {
    const page = await browser.newPage();
    const errors = collectErrors(page, { allowHttpErrors: false });
    const foreign: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(server.url) && !request.url().startsWith('data:'))
        foreign.push(request.url());
    });
    await page.goto(`${server.url}/api/docs`);
    // Scalar renders the document's description and the routes' summaries from /api/openapi.json.
    await expect
      .poll(() => page.getByText('Every error answers').count(), { timeout: 45_000 })
      .toBeGreaterThan(0);
    await expect.poll(() => page.getByText('Is the server up').count()).toBeGreaterThan(0);
    expect(foreign).toEqual([]);
    expect(errors.filter((error) => /Content Security Policy|Refused/i.test(error))).toEqual([]);
  }, 90_000);
});
