import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineTestsSkipped } from '../../src/server/modules/engines/engine-testing.js';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, confirm, hasChromium, launchBrowser, registerOnPage, taskIdOf } from './browser.js';

const run = promisify(execFile);

/**
 * Claude Code as a project's coder, offline: the real CLI (an optional dependency) in the server's
 * bubblewrap sandbox, the built-in simulator as the model behind it, the whole journey in Chromium.
 * Skipped where Chromium, Claude Code or bubblewrap is missing, unless AUTOCODER_TEST_ENGINES=required
 * (then a missing engine fails).
 */
const required = process.env.AUTOCODER_TEST_ENGINES === 'required';
// The engine first: with AUTOCODER_TEST_ENGINES=required a missing engine throws even without Chromium.
const engineMissing = engineTestsSkipped('claude-code', required, process.env.PATH ?? '/usr/bin:/bin');
if (engineMissing)
  console.warn('[e2e] Claude Code or bubblewrap is not installed: the engine journey is skipped.');

const TITLE = 'Add greeting helper';
/** What the simulated Claude Code writes for this title. */
const FILE = 'src/add-greeting-helper.ts';
/** The project's check: the branch has the helper. */
const CHECK = `test -f ${FILE}`;

describe.skipIf(engineMissing || !hasChromium)(
  'Claude Code as the coder in Chromium (simulated model)',
  () => {
    let server: ServerProcess;
    let browser: Browser;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-engines-'));
      server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SIMULATOR_DELAY_MS: '2' });
      browser = await launchBrowser();
    });

    afterAll(async () => {
      await browser?.close();
      await server?.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    const stepper = (page: Page) => page.getByTestId('phase-stepper');
    const taskStatus = (page: Page) => page.getByTestId('task-status').textContent();
    const engineCalls = (page: Page) =>
      page.getByTestId('agent-log-coder').locator('[data-testid="tool-call"][data-engine="claude-code"]');
    const checkStates = (page: Page) =>
      page
        .getByTestId('check-run')
        .evaluateAll((runs) => runs.map((check) => (check as HTMLElement).dataset.state));

    it('choose Claude Code → start offline → its tool calls live → check and review → approve merges', async () => {
      const started = Date.now();
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = collectErrors(page);
      const projectId = await registerOnPage(page, server.url, 'engines@example.com', 'engines-password');

      // Project settings: Claude Code is offered (installed here), chosen, with a check command.
      await page.getByTestId('project-settings').click();
      const engineSelect = page.getByTestId('project-coder-engine');
      const claudeOption = engineSelect.locator('option[value="claude-code"]');
      const engines = await (await page.request.get(`${server.url}/api/engines`)).json();
      expect(engines.engines.find((engine: { id: string }) => engine.id === 'claude-code')).toMatchObject({
        available: true,
        endpoint: 'anthropic',
      });
      await expect.poll(() => claudeOption.textContent()).toMatch(/^Claude Code/);
      expect(await claudeOption.textContent()).not.toMatch(/not (installed|available)/);
      expect(await claudeOption.isDisabled()).toBe(false);
      await engineSelect.selectOption('claude-code');
      // The default provider (the simulator) fits Claude Code: nothing to warn about.
      expect(await page.getByTestId('engine-note').count()).toBe(0);
      await page.getByTestId('project-check-command').fill(CHECK);
      await page.getByTestId('project-submit').click();
      await page.getByTestId('project-check-command').waitFor({ state: 'detached' });
      const project = await (await page.request.get(`${server.url}/api/projects/${projectId}`)).json();
      expect(project).toMatchObject({ coderEngine: 'claude-code', checkCommand: CHECK });

      // A task, started with the default (simulated) provider. engine-sleep makes each engine step run a
      // slow shell command first, so the step can be watched while it runs.
      await page.getByTestId('new-task').click();
      await page.getByTestId('task-title-input').fill(TITLE);
      await page
        .getByTestId('task-description-input')
        .fill('A function that greets a person by name. [simulate: engine-sleep=2]');
      await page.getByTestId('task-submit').click();
      const card = page.getByTestId('task-card').filter({ hasText: TITLE });
      await expect.poll(() => card.count()).toBe(1);
      await card.click();
      await page.getByTestId('task-drawer').waitFor();
      await page.getByTestId('btn-start-pipeline').click();
      await expect.poll(() => page.getByTestId('simulated-badge').count()).toBeGreaterThan(0);

      // Live: while the run is still going, the coder's timeline shows Claude Code's tool calls.
      const deadline = Date.now() + 120_000;
      let live: { status: string | undefined; phase: string | undefined; calls: number; states: string[] } = {
        status: undefined,
        phase: undefined,
        calls: 0,
        states: [],
      };
      for (;;) {
        live = await page.evaluate(() => {
          const stepperEl = document.querySelector<HTMLElement>('[data-testid="phase-stepper"]');
          const lines = [
            ...document.querySelectorAll<HTMLElement>(
              '[data-testid="agent-log-coder"] [data-testid="tool-call"][data-engine="claude-code"]',
            ),
          ].filter((line) => line.checkVisibility());
          return {
            status: stepperEl?.dataset.status,
            phase: stepperEl?.dataset.phase,
            calls: lines.length,
            states: lines.map((line) => line.dataset.state ?? ''),
          };
        });
        if (live.status === 'running' && live.calls > 0) break;
        if ((live.status && live.status !== 'running') || Date.now() > deadline) break;
        await page.waitForTimeout(100);
      }
      expect(live, 'Claude Code tool calls seen while the run was running').toMatchObject({
        status: 'running',
        phase: expect.stringMatching(/^(coding|fixing)$/),
      });
      expect(live.calls).toBeGreaterThan(0);
      // The first of the step's engine calls names the engine.
      expect(
        await page.getByTestId('agent-log-coder').getByTestId('tool-call-engine').first().textContent(),
      ).toBe('Claude Code');
      console.info(`[e2e engines] live: ${JSON.stringify(live)} after ${Date.now() - started} ms`);

      // The run reaches Review: every check passed, the reviewer scored it.
      await expect.poll(() => stepper(page).getAttribute('data-status'), { timeout: 120_000 }).toBe('passed');
      await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Review');
      await expect.poll(() => checkStates(page), { timeout: 30_000 }).toContain('passed');
      const checks = await checkStates(page);
      expect(checks.every((state) => state === 'passed')).toBe(true);
      await page.getByTestId('review-summary').waitFor({ timeout: 30_000 });
      expect(await page.getByTestId('review-score').textContent()).toMatch(/\d+\/100/);
      expect(await page.getByTestId('review-score').getByRole('img', { name: 'passed' }).count()).toBe(1);
      // The diff shows the engine's file.
      await page.locator(`[data-testid="diff-tree-file"][data-path="${FILE}"]`).waitFor({ timeout: 30_000 });

      // Every coder call was Claude Code's, each one finished.
      await page.getByTestId('agent-log-tab-coder').click();
      const calls = await page
        .getByTestId('agent-log-coder')
        .getByTestId('tool-call')
        .evaluateAll((lines) =>
          lines.map((line) => [line.getAttribute('data-engine'), line.getAttribute('data-state')]),
        );
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.filter(([engine, state]) => engine !== 'claude-code' || state !== 'ok')).toEqual([]);
      // The reviewer had its say in its own tab.
      await page.getByTestId('agent-log-tab-reviewer').click();
      expect(((await page.getByTestId('agent-log-reviewer').textContent()) ?? '').length).toBeGreaterThan(0);

      // The branch has the engine's commits (one per subtask) and the file; main has neither yet.
      const taskId = taskIdOf(page);
      const status = await (await page.request.get(`${server.url}/api/pipeline/${taskId}/status`)).json();
      expect(status.branch).toMatch(/^autocoder\/add-greeting-helper-[0-9a-f]{8}$/);
      const repo = path.join(dataDir, 'repos', projectId);
      const git = async (...args: string[]) => (await run('git', args, { cwd: repo })).stdout.trim();
      expect(await git('rev-parse', status.branch)).toBe(status.headCommit);
      expect(Number(await git('rev-list', '--count', `${status.baseCommit}..${status.branch}`))).toBe(
        status.subtasks.length,
      );
      expect((await git('ls-tree', '-r', '--name-only', status.branch)).split('\n')).toContain(FILE);
      expect(await git('ls-tree', '-r', '--name-only', 'main')).not.toContain(FILE);

      // A reload replays Claude Code's calls from the task's stream.
      const before = calls.length;
      await page.reload();
      await page.getByTestId('task-drawer').waitFor();
      await page.getByTestId('agent-log-tab-coder').click();
      await expect.poll(() => engineCalls(page).count(), { timeout: 30_000 }).toBe(before);
      expect(await page.getByTestId('agent-log-coder').getByTestId('tool-call').count()).toBe(before);

      // Approve merges the branch.
      await page.getByTestId('btn-approve-pipeline').click();
      await confirm(page, 'confirm-approve-pipeline');
      await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Done');
      await page.getByTestId('pipeline-merged').waitFor();
      expect((await git('ls-tree', '-r', '--name-only', 'main')).split('\n')).toContain(FILE);
      await git('merge-base', '--is-ancestor', status.headCommit, 'main');
      await page.keyboard.press('Escape');
      await expect.poll(() => page.getByTestId('column-done').getByTestId('task-card').count()).toBe(1);

      expect(errors).toEqual([]);
      console.info(`[e2e engines] journey took ${Date.now() - started} ms`);
      await page.close();
    }, 240_000);
  },
);
