import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

const require = createRequire(import.meta.url);

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * axe-core's violations of a serious or critical impact on the page as it is. axe is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
async function seriousViolations(page: Page, axeSource: string): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: object) => Promise<{ violations: Violation[] }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .flatMap((violation) =>
      violation.nodes.map(
        (node) =>
          `${violation.id} (${violation.impact}) ${node.target.join(' ')}: ${node.failureSummary ?? violation.help}`,
      ),
    );
}

describe.skipIf(!hasChromium)('accessibility in both themes (axe-core in Chromium)', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;
  let axeSource: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-a11y-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SIMULATOR_DELAY_MS: '2' });
    browser = await launchBrowser();
    axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('board, review page and settings have no serious or critical violation, light and dark', async () => {
    const context = await browser.newContext({
      viewport: { width: 1440, height: 1000 },
      colorScheme: 'light',
    });
    const page = await context.newPage();
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'a11y@example.com', 'a11y-password-1');

    // A task through the simulated pipeline to Review, and one waiting in the Backlog.
    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Add a greeting');
    await page.getByTestId('task-description-input').fill('Say hello in the README.');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Later work');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: 'Add a greeting' }).click();
    await page.getByTestId('task-drawer').waitFor();
    await page.getByTestId('btn-start-pipeline').click();
    await expect
      .poll(() => page.getByTestId('phase-stepper').getAttribute('data-status'), { timeout: 120_000 })
      .toBe('passed');
    const drawerUrl = page.url();
    await page.getByTestId('open-review-page').click({ timeout: 30_000 });
    await page.getByTestId('review-file-tree').waitFor({ timeout: 30_000 });
    const reviewUrl = page.url();

    const views = [
      { name: 'board', url: `${server.url}/projects/${projectId}`, ready: 'task-card' },
      { name: 'board with the drawer', url: drawerUrl, ready: 'phase-stepper' },
      { name: 'review page', url: reviewUrl, ready: 'review-file-tree' },
      { name: 'settings', url: `${server.url}/settings`, ready: 'settings-form' },
    ];
    const found: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      // The system's setting, followed while no choice is stored.
      await page.emulateMedia({ colorScheme: scheme });
      for (const view of views) {
        await page.goto(view.url);
        await page.getByTestId(view.ready).first().waitFor({ timeout: 30_000 });
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(
          scheme === 'dark',
        );
        for (const line of await seriousViolations(page, axeSource))
          found.push(`[${scheme}] ${view.name}: ${line}`);
      }
    }
    expect(found).toEqual([]);

    // The toggle overrides the system: light → dark, kept across a reload.
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto(`${server.url}/projects/${projectId}`);
    const toggle = page.getByTestId('theme-toggle');
    await toggle.click();
    expect(await toggle.getAttribute('data-theme-preference')).toBe('light');
    await toggle.click();
    expect(await toggle.getAttribute('data-theme-preference')).toBe('dark');
    await page.reload();
    await page.getByTestId('task-card').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).not.toBe('rgb(250, 250, 250)');

    expect(errors).toEqual([]);
    await context.close();
  }, 400_000);
});
