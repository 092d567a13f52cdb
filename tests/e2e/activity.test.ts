import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { agentTakesLock, collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

/** Issue 27 item 4: the board's Activity feed shows what happened before the page was (re)loaded. */
describe.skipIf(!hasChromium)('the Activity feed in Chromium, after a reload', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-activity-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('an agent takes a lock with its token; after a reload the feed shows it under the agent’s name', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'activity@example.com', 'activity-password');

    await agentTakesLock(page, server.url, projectId, {
      name: 'Agent Smith',
      file: 'src/auth.ts',
      message: 'Smith moves auth to sessions.',
    });

    await page.reload();
    const feed = page.getByRole('complementary', { name: 'Activity' });
    const entry = feed.getByTestId('activity-entry').filter({ hasText: 'Smith moves auth to sessions.' });
    await entry.waitFor();
    expect(await entry.textContent()).toContain('Agent Smith locked (WRITING) src/auth.ts');
    expect(await feed.getByText(/No agent activity yet/).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
