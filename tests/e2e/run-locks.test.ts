import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage, taskIdOf } from './browser.js';

const run = promisify(execFile);

/** Long enough that the wait never ends on its own here: the agent lets go. */
const LOCK_WAIT_SECONDS = 600;

/**
 * Issue 27 items 2 and 4 in Chromium: a run waiting for an agent's lock shows the file, the holder's
 * name and a countdown on the drawer and the card; and the locks a run holds through Review are on
 * the board again after the server restarts.
 */
describe.skipIf(!hasChromium)('run locks in Chromium: the wait, and Review through a restart', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;
  const env = () => ({
    AUTOCODER_DATA_DIR: dataDir,
    AUTOCODER_SIMULATOR_DELAY_MS: '2',
    LOCK_WAIT_SECONDS: String(LOCK_WAIT_SECONDS),
    LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-run-locks-'));
    server = await startServerProcess(env());
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** When a notice with this test id first appeared, by the page's clock (a MutationObserver). */
  function watchFor(page: Page, testId: string) {
    return page.evaluate((id) => {
      const seen = new Promise<number>((resolve) => {
        const look = () => {
          if (!document.querySelector(`[data-testid="${id}"]`)) return false;
          resolve(Date.now());
          return true;
        };
        if (look()) return;
        const observer = new MutationObserver(() => {
          if (look()) observer.disconnect();
        });
        observer.observe(document.body, { childList: true, subtree: true });
      });
      (window as unknown as Record<string, Promise<number>>)[`seen-${id}`] = seen;
    }, testId);
  }
  const seenAt = (page: Page, testId: string) =>
    page.evaluate((id) => (window as unknown as Record<string, Promise<number>>)[`seen-${id}`], testId);

  it('shows whom the run waits for, goes on when the agent lets go, and keeps the run’s locks through a restart', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'run-locks@example.com', 'run-locks-password');

    // Alice's agent holds the file the simulated coder writes for this task.
    const created = await page.request.post(`${server.url}/api/tokens`, {
      data: { name: 'Alice’s agent' },
      headers: { origin: server.url },
    });
    expect(created.status()).toBe(201);
    const { token } = (await created.json()) as { token: string };
    const status = async (state: 'WRITING' | 'OPEN') => {
      // Letting go (OPEN) names the head the agent leaves the branch at.
      const head =
        state === 'OPEN'
          ? (
              await run('git', ['rev-parse', 'main'], { cwd: path.join(dataDir, 'repos', projectId) })
            ).stdout.trim()
          : undefined;
      const res = await fetch(`${server.url}/api/post_status`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          repo_url: `${server.url}/git/${projectId}.git`,
          branch: 'main',
          file_paths: ['src/add-waiting-helper.ts'],
          status: state,
          message: state === 'OPEN' ? 'Alice is done.' : 'Alice rewrites the helper.',
          ...(head ? { new_repo_head: head } : {}),
        }),
      });
      return (await res.json()) as { success: boolean };
    };
    expect((await status('WRITING')).success).toBe(true);

    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Add waiting helper');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: 'Add waiting helper' }).click();
    await page.getByTestId('task-drawer').waitFor();
    const taskId = taskIdOf(page);
    await watchFor(page, 'lock-wait');
    await watchFor(page, 'card-lock-wait');
    await page.getByTestId('btn-start-pipeline').click();

    // The drawer and the card say which file, whose lock, and how long the run will wait.
    const notice = page.getByTestId('lock-wait');
    await notice.waitFor({ timeout: 120_000 });
    expect(await notice.textContent()).toContain(
      'Waiting for src/add-waiting-helper.ts — held by Alice’s agent',
    );
    expect(await page.getByTestId('lock-wait-countdown').textContent()).toMatch(/\d+ s left/);
    const card = page.getByTestId('task-card').filter({ hasText: 'Add waiting helper' });
    await card.getByTestId('card-lock-wait').waitFor();
    expect(await card.getByTestId('card-lock-wait').textContent()).toContain('held by Alice’s agent');
    // How long after the wait began the page showed it (reported, not asserted: a loaded machine).
    const until = Number(await notice.getAttribute('data-until'));
    const began = until - LOCK_WAIT_SECONDS * 1000;
    const drawerAt = (await seenAt(page, 'lock-wait')) ?? Number.NaN;
    const cardAt = (await seenAt(page, 'card-lock-wait')) ?? Number.NaN;
    console.info(
      `[e2e] lock wait shown ${drawerAt - began} ms (drawer), ${cardAt - began} ms (card) after it began`,
    );

    // Alice lets go: the notice goes, and the run goes on to Review.
    expect((await status('OPEN')).success).toBe(true);
    await expect
      .poll(() => page.getByTestId('phase-stepper').getAttribute('data-status'), { timeout: 120_000 })
      .toBe('passed');
    expect(await page.getByTestId('lock-wait').count()).toBe(0);
    await card.getByTestId('task-lock-badge').waitFor();
    const held = await card.getByTestId('task-lock-badge').textContent();
    const locksOf = async () => {
      const res = await page.request.get(`${server.url}/api/projects/${projectId}/locks`);
      const { locks } = (await res.json()) as { locks: { path: string; timestamp: number }[] };
      // Taken again at start-up: the same holder, files and message; the time is the restart's.
      return locks.map(({ timestamp: _, ...lock }) => lock).sort((a, b) => a.path.localeCompare(b.path));
    };
    const locksBefore = await locksOf();
    expect(locksBefore.length).toBeGreaterThan(0);

    // A restart, same data: the run's locks are on the board and in the API again. (The page
    // leaves first: its streams would retry a server that is down.)
    await page.goto('about:blank');
    await server.stop();
    server = await startServerProcess(env());
    await page.goto(`${server.url}/projects/${projectId}?task=${taskId}`);
    const after = page.getByTestId('task-card').filter({ hasText: 'Add waiting helper' });
    await after.getByTestId('task-lock-badge').waitFor({ timeout: 30_000 });
    expect(await after.getByTestId('task-lock-badge').textContent()).toBe(held);
    expect(await locksOf()).toEqual(locksBefore);

    expect(errors).toEqual([]);
    await page.close();
  }, 400_000);
});
