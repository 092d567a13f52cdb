import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, confirm, hasChromium, launchBrowser, registerOnPage } from './browser.js';

/** The project's check: fails until the branch has fixed.txt. */
const CHECK = 'test -f fixed.txt || { echo "fixed.txt is missing" >&2; exit 1; }';

/**
 * Every state the stepper has shown, in order: a MutationObserver in the page records each distinct
 * picture of its steps ("check:failed reviewing:current …"), so no state is missed however fast the
 * simulated run goes.
 */
async function recordStepper(page: Page) {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __steps: string[] }).__steps = seen;
    const snap = () => {
      const stepper = document.querySelector('[data-testid="phase-stepper"]');
      if (!stepper) return;
      const picture = [...stepper.querySelectorAll<HTMLElement>('li[data-step]')]
        .map((li) => {
          const detail = li.querySelector('[data-testid^="phase-step-detail-"]')?.textContent ?? '';
          return `${li.dataset.step}:${li.dataset.state}:${detail}`;
        })
        .join(' | ');
      if (seen.at(-1) !== picture) seen.push(picture);
    };
    new MutationObserver(snap).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
    snap();
  });
}

const pictures = (page: Page) => page.evaluate(() => (window as unknown as { __steps: string[] }).__steps);

/** One step's state and detail in a picture, e.g. ['failed', 'exit 1 · 0.1 s']. */
function step(picture: string, key: string): [string, string] | null {
  const part = picture.split(' | ').find((p) => p.startsWith(`${key}:`));
  if (!part) return null;
  const [, state = '', ...detail] = part.split(':');
  return [state, detail.join(':')];
}

describe.skipIf(!hasChromium)('the stepper during a failing then passing check (Chromium)', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-stepper-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SIMULATOR_DELAY_MS: '2' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('shows the check failed (Reviewing never green then), the fix 1/2 and the check passing; the summary has a Checks tile; Approve asks first', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectErrors(page);
    await registerOnPage(page, server.url, 'stepper@example.com', 'stepper-password');

    // The gate runs after the coding step (the one-shot coder runs no check itself).
    await page.getByTestId('project-settings').click();
    await page.getByTestId('project-check-command').fill(CHECK);
    await page.getByTestId('project-check-timeout').fill('60');
    await page.getByTestId('project-coder-engine').selectOption('one-shot');
    await page.getByTestId('project-submit').click();
    await page.getByTestId('project-check-command').waitFor({ state: 'detached' });

    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Make the check pass');
    await page
      .getByTestId('task-description-input')
      .fill('The check wants a file. [simulate: check-fix=fixed.txt]');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: 'Make the check pass' }).click();
    await page.getByTestId('task-drawer').waitFor();
    await recordStepper(page);
    await page.getByTestId('btn-start-pipeline').click();

    const stepper = page.getByTestId('phase-stepper');
    await expect.poll(() => stepper.getAttribute('data-status'), { timeout: 90_000 }).toBe('passed');
    const seen = await pictures(page);

    // (The check running, Coding done meanwhile, is the component test's: this check ends within a
    // frame of its output, so the browser may never paint it running.)
    // It failed, with its exit code; while it stood failed, Reviewing was never green.
    const failed = seen.filter((p) => step(p, 'check')?.[0] === 'failed');
    expect(failed.length).toBeGreaterThan(0);
    expect(step(failed[0] ?? '', 'check')?.[1]).toMatch(/^exit 1 · \d+(\.\d)? s$/);
    for (const picture of failed) expect(step(picture, 'reviewing')?.[0]).not.toBe('complete');
    // The fix is attempt 1 of 2, as the log says.
    const fixing = seen.filter((p) => step(p, 'fixing')?.[0] === 'current');
    expect(fixing.length).toBeGreaterThan(0);
    expect(step(fixing[0] ?? '', 'fixing')?.[1]).toBe('1/2');
    await page.getByTestId('agent-log-tab-coder').click();
    expect(await page.getByTestId('agent-log-coder').textContent()).toContain('attempt 1/2');
    // Then the second check passed, and so did the run.
    const last = seen.at(-1) ?? '';
    expect(step(last, 'check')).toEqual(['complete', expect.stringMatching(/^passed · /)]);
    expect(step(last, 'reviewing')?.[0]).toBe('complete');

    // The summary's Checks tile: passed, exit 0, two checks.
    const tile = page.getByTestId('review-checks');
    await tile.waitFor({ timeout: 30_000 });
    expect(await tile.textContent()).toMatch(/passed.*exit 0 · .* · 2 runs/);

    // Approve asks first, naming the branch and where it goes; Not yet merges nothing.
    const branch = (await page.getByTestId('run-branch').locator('code').textContent())?.trim() ?? '';
    expect(branch).toMatch(/^autocoder\//);
    await page.getByTestId('btn-approve-pipeline').click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    expect(await dialog.getByRole('heading').textContent()).toBe(`Merge ${branch} into main?`);
    await dialog.getByRole('button', { name: 'Not yet' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('task-status').textContent()).toBe('Review');
    await page.getByTestId('btn-approve-pipeline').click();
    await confirm(page, 'confirm-approve-pipeline');
    await expect.poll(() => page.getByTestId('task-status').textContent(), { timeout: 30_000 }).toBe('Done');

    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);
});
