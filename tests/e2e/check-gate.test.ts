import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

/** The project's check: fails until the branch has fixed.txt, saying so on stderr. */
const CHECK =
  'echo "checking for fixed.txt"; test -f fixed.txt || { echo "fixed.txt is missing" >&2; exit 3; }';

describe.skipIf(!hasChromium)('a failing repository check in Chromium (simulated agents)', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-check-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SIMULATOR_DELAY_MS: '2' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const stepper = (page: Page) => page.getByTestId('phase-stepper');
  const checkStates = (page: Page) =>
    page
      .getByTestId('check-run')
      .evaluateAll((runs) => runs.map((run) => (run as HTMLElement).dataset.state));

  it('shows the check failing live, the coder fixing it, and the run passing', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectErrors(page);
    await registerOnPage(page, server.url, 'checks@example.com', 'checks-password');

    await page.getByTestId('project-settings').click();
    await page.getByTestId('project-check-command').fill(CHECK);
    await page.getByTestId('project-check-timeout').fill('60');
    await page.getByTestId('project-submit').click();
    await page.getByTestId('project-check-command').waitFor({ state: 'detached' });

    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Make the check pass');
    // The simulator's scripted fix: once a failing check reaches the coder, it writes fixed.txt.
    await page
      .getByTestId('task-description-input')
      .fill('The check wants a file. [simulate: check-fix=fixed.txt]');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: 'Make the check pass' }).click();
    await page.getByTestId('task-drawer').waitFor();
    await page.getByTestId('btn-start-pipeline').click();

    // The first check fails, its output shown with its exit code.
    await expect.poll(() => checkStates(page), { timeout: 60_000 }).toContain('failed');
    const first = page.getByTestId('check-run').first();
    // Only the latest check is open at first; by now the coder may have run another.
    if ((await first.getByTestId('check-output').count()) === 0) {
      await first.locator('button[aria-expanded]').first().click();
    }
    expect(await first.getByTestId('check-output').textContent()).toContain('fixed.txt is missing');
    expect(await first.locator('[data-stream="stderr"]').first().textContent()).toContain(
      'fixed.txt is missing',
    );
    expect(await first.getByTestId('check-result').textContent()).toContain('exit code 3');

    // The coder is sent back with the check's output, fixes it, and the second check passes.
    await expect.poll(() => stepper(page).getAttribute('data-status'), { timeout: 60_000 }).toBe('passed');
    // Each subtask's coder runs the check itself: the first fails, every one after the scripted fix passes.
    const states = await checkStates(page);
    expect(states[0]).toBe('failed');
    expect(states.length).toBeGreaterThan(1);
    expect(states.slice(1).every((state) => state === 'passed')).toBe(true);
    // The coder ran the check itself, wrote the scripted fix, and ran it again.
    await page.getByTestId('agent-log-tab-coder').click();
    const coderLog = page.getByTestId('agent-log-coder');
    expect(await coderLog.locator('[data-testid="tool-call"][data-tool="run_check"]').count()).toBe(
      states.length,
    );
    expect(
      await coderLog.locator('[data-testid="tool-call"][data-tool="write_file"]').allTextContents(),
    ).toContainEqual(expect.stringContaining('fixed.txt'));
    expect(await page.getByTestId('task-status').textContent()).toBe('Review');

    // After a reload the whole story comes back from the task's stream.
    await page.reload();
    await page.getByTestId('task-drawer').waitFor();
    await expect.poll(() => checkStates(page), { timeout: 30_000 }).toEqual(states);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
