import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, confirm, hasChromium, launchBrowser, registerOnPage } from './browser.js';

const run = promisify(execFile);

describe.skipIf(!hasChromium)('the full review page in Chromium (simulated agents)', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-review-page-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SIMULATOR_DELAY_MS: '2' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('opens from the drawer, keeps a viewed mark across a reload, expands context, and approves', async () => {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(
      page,
      server.url,
      'review-page@example.com',
      'review-page-password',
    );

    // A file long enough that the run's one-line changes leave unchanged lines around them.
    const repo = path.join(dataDir, 'repos', projectId);
    const lines = Array.from({ length: 200 }, (_, i) => `export const item${i} = ${i};`);
    await mkdir(path.join(repo, 'src'), { recursive: true });
    await writeFile(path.join(repo, 'src/table.ts'), `${lines.join('\n')}\n`);
    const git = (args: string[]) =>
      run('git', ['-c', 'user.name=E2E', '-c', 'user.email=e2e@example.com', ...args], { cwd: repo });
    await git(['add', 'src/table.ts']);
    await git(['commit', '--quiet', '--no-verify', '-m', 'A table']);

    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Tweak the table');
    await page
      .getByTestId('task-description-input')
      .fill('Change one entry. [simulate: big-edit=src/table.ts]');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: 'Tweak the table' }).click();
    await page.getByTestId('task-drawer').waitFor();
    await page.getByTestId('btn-start-pipeline').click();
    await expect
      .poll(() => page.getByTestId('phase-stepper').getAttribute('data-status'), { timeout: 90_000 })
      .toBe('passed');
    await expect.poll(() => page.getByTestId('task-status').textContent()).toBe('Review');

    // The drawer's review panel links to the page.
    await page.getByTestId('open-review-page').click({ timeout: 30_000 });
    await page.waitForURL(new RegExp(`/projects/${projectId}/tasks/[0-9a-f-]{36}/review$`));
    const reviewUrl = page.url();
    await page.getByTestId('review-file-tree').waitFor({ timeout: 30_000 });
    const table = page.locator('[data-testid="review-file"][data-path="src/table.ts"]');
    await table.waitFor();
    expect(await page.getByTestId('review-checks').getAttribute('data-result')).not.toBeNull();

    // Viewed: marked, folded, counted, and still so after a reload.
    const total = await page.getByTestId('viewed-count').getAttribute('data-total');
    await page.getByTestId('viewed-src/table.ts').check();
    expect(await table.getAttribute('data-viewed')).toBe('true');
    expect(await table.getAttribute('data-collapsed')).toBe('true');
    expect(await page.getByTestId('viewed-count').textContent()).toBe(`1 / ${total} viewed`);
    await page.reload();
    await page.getByTestId('review-file-tree').waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(reviewUrl);
    await table.waitFor();
    expect(await page.getByTestId('viewed-src/table.ts').isChecked()).toBe(true);
    expect(await table.getAttribute('data-viewed')).toBe('true');

    // Expand context above the first change: lines read from the file at the run's head.
    await table.getByTestId('review-file-toggle').click();
    const above = table.locator('[data-testid="diff-expander"][data-gap="0"]');
    const hidden = Number(await above.getAttribute('data-hidden'));
    expect(hidden).toBeGreaterThan(20);
    const shownBefore = await table.locator('tr[data-anchor]').count();
    await above.getByTestId('expand-up').click();
    await expect
      .poll(() => table.locator('tr[data-anchor]').count(), { timeout: 15_000 })
      .toBe(shownBefore + 20);
    expect(Number(await above.getAttribute('data-hidden'))).toBe(hidden - 20);
    const firstShown = Number(await table.locator('tr[data-anchor]').first().getAttribute('data-anchor'));
    expect(await table.locator(`tr[data-anchor="${firstShown}"]`).textContent()).toContain(
      `export const item${firstShown - 1} = ${firstShown - 1};`,
    );
    await above.getByTestId('expand-all').click();
    await expect.poll(() => table.locator('tr[data-anchor="1"]').count()).toBe(1);

    // Approve from the page: merged, and the controls say so.
    await page.getByTestId('btn-approve-pipeline').click();
    // Approve asks first, naming the branch.
    await confirm(page, 'confirm-approve-pipeline');
    await page.getByTestId('pipeline-merged').waitFor({ timeout: 30_000 });
    const { stdout: main } = await run('git', ['log', '-1', '--format=%s', 'main'], { cwd: repo });
    expect(main.trim()).not.toBe('A table');

    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
