import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import {
  collectErrors,
  confirm,
  hasChromium,
  launchBrowser,
  registerOnPage,
  roundAfterChangesPassed,
  taskIdOf,
} from './browser.js';

const run = promisify(execFile);

describe.skipIf(!hasChromium)('pipeline journey in Chromium (simulated agents)', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-pipeline-'));
    // A few ms per chunk: slow enough to reload in the middle of a run, fast enough for a test.
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SIMULATOR_DELAY_MS: '4' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const card = (page: Page, title: string) => page.getByTestId('task-card').filter({ hasText: title });
  const stepper = (page: Page) => page.getByTestId('phase-stepper');
  /** An agent's prose, block after block (its tool calls are lines of their own between them). */
  const logText = async (page: Page, agent: string) =>
    (
      await page
        .getByTestId(`agent-log-${agent}`)
        .getByTestId('agent-prose')
        .allTextContents()
        .catch(() => [])
    ).join('\n');
  const toolLines = (page: Page, agent: string) =>
    page.getByTestId(`agent-log-${agent}`).getByTestId('tool-call');
  const taskStatus = (page: Page) => page.getByTestId('task-status').textContent();

  async function addAndOpen(page: Page, title: string, description = '') {
    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill(title);
    if (description) await page.getByTestId('task-description-input').fill(description);
    await page.getByTestId('task-submit').click();
    await expect.poll(() => card(page, title).count()).toBe(1);
    await card(page, title).click();
    await page.getByTestId('task-drawer').waitFor();
  }

  it('start with simulated agents → watch the logs (a reload loses nothing) → Review → request changes → approve', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'pipeline@example.com', 'pipeline-password');

    await addAndOpen(page, 'Add a greeting module', 'Export a function that greets a person by name.');
    await page.getByTestId('btn-start-pipeline').click();
    // The simulator is labelled as such, never as AI.
    await expect.poll(() => page.getByTestId('simulated-badge').count()).toBeGreaterThan(0);
    await expect
      .poll(async () => (await logText(page, 'planner')).length, { timeout: 30_000 })
      .toBeGreaterThan(20);
    await expect.poll(() => stepper(page).getAttribute('data-phase'), { timeout: 30_000 }).toBe('coding');

    // Reload in the middle of the run: every line streamed so far comes back.
    const planner = await logText(page, 'planner');
    const coder = await logText(page, 'coder');
    await page.reload();
    await page.getByTestId('task-drawer').waitFor();
    await expect
      .poll(async () => (await logText(page, 'planner')).length, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(planner.length);
    expect(await logText(page, 'planner')).toBe(planner);
    expect((await logText(page, 'coder')).startsWith(coder)).toBe(true);

    await expect.poll(() => stepper(page).getAttribute('data-status'), { timeout: 60_000 }).toBe('passed');
    await expect.poll(() => taskStatus(page)).toBe('Review');

    // The coder worked with tools: one readable line per call, each done, ending with finish, and
    // no escaped JSON anywhere in its log.
    await page.getByTestId('agent-log-tab-coder').click();
    const calls = toolLines(page, 'coder');
    await expect.poll(() => calls.count(), { timeout: 30_000 }).toBeGreaterThan(3);
    const tools = await calls.evaluateAll((lines) => lines.map((line) => line.getAttribute('data-tool')));
    expect(tools).toContain('list_files');
    expect(tools.some((tool) => tool === 'edit_file' || tool === 'write_file')).toBe(true);
    expect(tools.at(-1)).toBe('finish');
    const states = await calls.evaluateAll((lines) => lines.map((line) => line.getAttribute('data-state')));
    expect(
      states.filter((state) => state !== 'ok'),
      JSON.stringify({ tools, states }),
    ).toEqual([]);
    const coderLog = (await page.getByTestId('agent-log-coder').textContent()) ?? '';
    expect(coderLog).not.toMatch(/\\n|\\"|\{"files"/);
    // A reload brings back the same lines.
    const before = await calls.count();
    await page.reload();
    await page.getByTestId('task-drawer').waitFor();
    await page.getByTestId('agent-log-tab-coder').click();
    await expect.poll(() => toolLines(page, 'coder').count(), { timeout: 30_000 }).toBe(before);

    // The work is on the task's own branch, one commit per subtask, not on main.
    const status = await (
      await page.request.get(`${server.url}/api/pipeline/${taskIdOf(page)}/status`)
    ).json();
    expect(status.branch).toMatch(/^autocoder\/add-a-greeting-module-[0-9a-f]{8}$/);
    const repo = path.join(dataDir, 'repos', projectId);
    const { stdout: count } = await run(
      'git',
      ['rev-list', '--count', `${status.baseCommit}..${status.branch}`],
      {
        cwd: repo,
      },
    );
    expect(Number(count)).toBe(status.subtasks.length);
    const { stdout: mainFiles } = await run('git', ['ls-tree', '-r', '--name-only', 'main'], { cwd: repo });
    expect(mainFiles.trim()).toBe('');

    await page.getByTestId('btn-request-changes').click();
    await page.getByTestId('request-changes-feedback').fill('Please also export a farewell function.');
    await page.getByTestId('request-changes-submit').click();
    await roundAfterChangesPassed(page, server.url);
    await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Review');

    await page.getByTestId('btn-approve-pipeline').click();
    await confirm(page, 'confirm-approve-pipeline');
    await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Done');
    const { stdout: merged } = await run('git', ['ls-tree', '-r', '--name-only', 'main'], { cwd: repo });
    expect(merged.trim().split('\n').length).toBeGreaterThan(0);
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('column-done').getByTestId('task-card').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it('shows a provider error with Retry, and cancels a run', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}/login`);
    await page.getByTestId('login-email').fill('pipeline@example.com');
    await page.getByTestId('login-password').fill('pipeline-password');
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/projects\//);

    await addAndOpen(page, 'Rate limited task', '[simulate: error=429@coder]');
    await page.getByTestId('btn-start-pipeline').click();
    await page.getByTestId('error-notification').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('error-notification').textContent()).toMatch(/429/);
    // One Retry on screen: the controls'.
    await page.getByTestId('btn-retry-pipeline').click();
    await expect.poll(() => stepper(page).getAttribute('data-status'), { timeout: 60_000 }).toBe('passed');
    await page.keyboard.press('Escape');

    await addAndOpen(page, 'Slow task to cancel', '[simulate: slow=30]');
    await page.getByTestId('btn-start-pipeline').click();
    await expect
      .poll(async () => (await logText(page, 'planner')).length, { timeout: 30_000 })
      .toBeGreaterThan(0);
    await page.getByTestId('btn-cancel-pipeline').click();
    await page.getByTestId('confirm-cancel-pipeline').click();
    await expect.poll(() => stepper(page).getAttribute('data-status'), { timeout: 30_000 }).toBe('cancelled');
    await expect.poll(() => taskStatus(page)).toBe('Backlog');
    await page.close();
  });
});
