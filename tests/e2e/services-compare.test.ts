import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

const run = promisify(execFile);

/** A dev server that lists the files of the checkout it runs in, so two checkouts answer differently. */
const SERVICE = `#!/usr/bin/env node
//---
// name: Files
// description: Lists the files of its checkout
// http: auto
//---
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
function walk(dir, prefix, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === '.git') continue;
    if (entry.isDirectory()) walk(path.join(dir, entry.name), prefix + entry.name + '/', out);
    else out.push(prefix + entry.name);
  }
  return out;
}
http
  .createServer((req, res) => {
    const files = walk(process.cwd(), '', []).sort();
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>files</title><ul id="files">' +
      files.map((file) => '<li>' + file.replace(/[<>&]/g, '') + '</li>').join('') + '</ul>');
  })
  .listen(Number(process.env.PORT), '127.0.0.1', () => console.log('files listening on ' + process.env.PORT));
`;

describe.skipIf(!hasChromium)('a run’s service beside the project’s, in Chromium (simulated agents)', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-compare-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SIMULATOR_DELAY_MS: '2' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Starts the Files service of the nth column, opens its preview and answers the files it lists. */
  async function previewFiles(page: Page, column: number): Promise<string[]> {
    const services = page.getByTestId('workspace-services').nth(column);
    const card = services.getByTestId('service-card').filter({ hasText: 'Files' });
    await card.waitFor();
    await card.getByTestId('service-start').click();
    await expect
      .poll(() => card.getByTestId('service-status').getAttribute('data-status'), { timeout: 30_000 })
      .toBe('running');
    await card.getByTestId('service-preview-toggle').click();
    const list = card.frameLocator('[data-testid="service-preview-frame"]').locator('#files');
    await expect.poll(() => list.count(), { timeout: 30_000 }).toBe(1);
    return list.locator('li').allTextContents();
  }

  it('previews the task’s branch and the default branch side by side, each on its own port', async () => {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'compare@example.com', 'compare-password');

    // The service file is committed on the default branch, so the run's worktree has it too.
    const repo = path.join(dataDir, 'repos', projectId);
    await mkdir(path.join(repo, '.discobot', 'services'), { recursive: true });
    await writeFile(path.join(repo, '.discobot', 'services', 'files'), SERVICE);
    await chmod(path.join(repo, '.discobot', 'services', 'files'), 0o755);
    const git = (...args: string[]) =>
      run('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.com', ...args], { cwd: repo });
    await git('add', '.discobot');
    await git('commit', '--quiet', '-m', 'Add a files service');

    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Add a greeting module');
    await page.getByTestId('task-description-input').fill('Export a function that greets a person by name.');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: 'Add a greeting module' }).click();
    await page.getByTestId('task-drawer').waitFor();
    await page.getByTestId('btn-start-pipeline').click();
    await expect
      .poll(() => page.getByTestId('phase-stepper').getAttribute('data-status'), { timeout: 60_000 })
      .toBe('passed');

    // In Review, the drawer offers the run's services and the comparison with the project's.
    await page.getByTestId('task-services-compare').click();
    await page.waitForURL(/\/services\?workspace=.+&compare=1/);
    await expect.poll(() => page.getByTestId('workspace-services').count(), { timeout: 30_000 }).toBe(2);

    const onMain = await previewFiles(page, 0);
    const onBranch = await previewFiles(page, 1);
    expect(onMain).toContain('.discobot/services/files');
    expect(onBranch).toContain('.discobot/services/files');
    // The coder's files are on the branch only.
    const added = onBranch.filter((file) => !onMain.includes(file));
    expect(added.length).toBeGreaterThan(0);
    expect(onMain.filter((file) => !onBranch.includes(file))).toEqual([]);

    // Two processes on two automatic ports.
    const ports = await page.getByTestId('service-port').allTextContents();
    expect(ports).toHaveLength(2);
    expect(ports[0]).toMatch(/^http :\d+$/);
    expect(new Set(ports).size).toBe(2);

    for (const stop of await page.getByTestId('service-stop').all()) await stop.click();
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
