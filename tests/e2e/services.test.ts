import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

/** A tiny HTTP server as a service file: a coloured log line, and a page that says hello. */
const SERVICE = `#!/usr/bin/env node
//---
// name: Hello
// description: A tiny page
// http: auto
//---
const http = require('node:http');
http
  .createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>hello</title><h1 id="greeting">Hello from main</h1>');
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () =>
    console.log('\\u001b[32mhello listening\\u001b[0m on ' + process.env.PORT),
  );
`;

describe.skipIf(!hasChromium)('a workspace service in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-services-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('starts a service from the Services view, shows its log, previews it and stops it', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectErrors(page);
    // Every preview answer: a used ticket or a missing grant would answer 401.
    const previewStatuses: number[] = [];
    page.on('response', (response) => {
      if (response.url().includes('-svc-hello.localhost')) previewStatuses.push(response.status());
    });
    const projectId = await registerOnPage(page, server.url, 'services@example.com', 'services-password');

    // The person adds a service file to the project's checkout.
    const dir = path.join(dataDir, 'repos', projectId, '.discobot', 'services');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'hello'), SERVICE);
    await chmod(path.join(dir, 'hello'), 0o755);

    await page.getByTestId('nav-services').click();
    await page.waitForURL(/\/services/);
    const card = page.getByTestId('service-card').filter({ hasText: 'Hello' });
    await card.waitFor();
    expect(await page.getByTestId('workspace-item').first().getAttribute('aria-current')).toBe('true');
    expect(await card.getByTestId('service-status').getAttribute('data-status')).toBe('stopped');
    expect(await card.getByTestId('service-port').textContent()).toBe('http auto port');

    await card.getByTestId('service-start').click();
    const log = card.getByTestId('service-log-lines');
    await expect.poll(() => log.textContent(), { timeout: 30_000 }).toMatch(/hello listening on \d+/);
    // The ANSI green arrives as a colour, not as escape codes.
    expect(
      await log
        .locator('span', { hasText: 'hello listening' })
        .evaluate((span) => getComputedStyle(span).color),
    ).toBe('rgb(0, 187, 0)');
    await expect
      .poll(() => card.getByTestId('service-status').getAttribute('data-status'), { timeout: 30_000 })
      .toBe('running');
    expect(await card.getByTestId('service-port').textContent()).toMatch(/^http :\d+$/);

    // The preview: the service's page in an iframe on its own origin, through a one-time ticket.
    await card.getByTestId('service-preview-toggle').click();
    const frame = card.getByTestId('service-preview-frame');
    await expect
      .poll(() => frame.getAttribute('src'))
      .toMatch(/-svc-hello\.localhost:\d+\/__autocoder\/preview\?ticket=/);
    const inner = page.frameLocator('[data-testid="service-preview-frame"]');
    await expect
      .poll(() => inner.locator('#greeting').textContent({ timeout: 20_000 }), { timeout: 30_000 })
      .toBe('Hello from main');
    await card.getByTestId('service-preview-refresh').click();
    await expect
      .poll(() => inner.locator('#greeting').textContent({ timeout: 20_000 }), { timeout: 30_000 })
      .toBe('Hello from main');

    expect(previewStatuses).not.toContain(401);

    await card.getByTestId('service-stop').click();
    await expect
      .poll(() => card.getByTestId('service-status').getAttribute('data-status'), { timeout: 30_000 })
      .toBe('stopped');
    await expect.poll(() => card.getByTestId('service-log').getAttribute('data-state')).toBe('ended');
    expect(errors).toEqual([]);
    await page.close();
  }, 150_000);
});
