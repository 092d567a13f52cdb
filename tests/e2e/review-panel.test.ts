import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
} from './browser.js';

const run = promisify(execFile);

describe.skipIf(!hasChromium)('the review panel in Chromium (simulated agents)', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-review-'));
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
  const diffPath = (page: Page) => page.getByTestId('file-diff').getAttribute('data-path');
  /** The notes under a line of the file shown: the table row after the line's row. */
  const notesUnder = (page: Page, line: number) =>
    page.locator(`[data-testid="file-diff"] tr[data-anchor="${line}"] + tr [data-testid="line-notes"]`);

  it('reads the diff with its finding on its line, comments on a line, requests changes, then approves', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'review@example.com', 'review-password');

    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill('Add a greeting module');
    await page.getByTestId('task-description-input').fill('Export a function that greets a person by name.');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: 'Add a greeting module' }).click();
    await page.getByTestId('task-drawer').waitFor();
    await page.getByTestId('btn-start-pipeline').click();
    await expect.poll(() => stepper(page).getAttribute('data-status'), { timeout: 60_000 }).toBe('passed');
    await expect.poll(() => taskStatus(page)).toBe('Review');

    // The panel: what changed, by file, with the reviewer's score.
    const panel = page.getByTestId('review-panel');
    await panel.waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('review-score').textContent()).toContain('88/100');
    const filesChanged = Number(
      await page
        .getByTestId('review-files-changed')
        .textContent()
        .then((t) => t?.replace(/\D/g, '')),
    );
    expect(filesChanged).toBeGreaterThan(0);
    expect(await page.getByTestId('diff-tree-file').count()).toBe(filesChanged);

    // The simulated reviewer's finding is on line 1 of a file: choosing it in the tree shows it there.
    const finding = page.getByTestId('diff-tree-finding').first();
    expect(await finding.getAttribute('data-line')).toBe('1');
    await finding.click();
    await expect.poll(() => page.locator('tr[data-anchor="1"]').getAttribute('data-focused')).toBe('true');
    const file = (await diffPath(page)) ?? '';
    expect(file).not.toBe('');
    expect(await notesUnder(page, 1).getByTestId('diff-finding').textContent()).toContain('Simulated review');
    // Highlighted by Shiki: the code's tokens carry a colour per theme.
    await expect
      .poll(
        () =>
          page
            .locator('[data-testid="file-diff"] tr[data-anchor] span.code-token[style*="--code-light"]')
            .count(),
        {
          timeout: 15_000,
        },
      )
      .toBeGreaterThan(0);

    // A comment on line 2.
    await page.locator('[data-testid="diff-gutter"][data-line="2"]').click();
    await page.getByTestId('diff-comment-input').fill('Please name the greeting after the person.');
    await page.getByTestId('diff-comment-submit').click();
    await notesUnder(page, 2).getByTestId('diff-comment').waitFor();
    expect(await notesUnder(page, 2).getByTestId('diff-comment').textContent()).toContain(
      'Please name the greeting after the person.',
    );

    // Side by side shows the same line and its comment.
    await page.getByTestId('diff-mode-split').click();
    await page.getByTestId('diff-split').waitFor();
    expect(await notesUnder(page, 2).getByTestId('diff-comment').count()).toBe(1);

    // Request changes: the comment goes with it, so the feedback may stay empty.
    await page.getByTestId('btn-request-changes').click();
    expect(await page.getByTestId('request-changes-comments').textContent()).toBe(
      'Your 1 open comment on a line goes with it.',
    );
    await page.getByTestId('request-changes-submit').click();
    await roundAfterChangesPassed(page, server.url);
    await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Review');

    // The comment reached the coder: the simulated coder read it from its prompt and answered it.
    await page.getByTestId('agent-log-tab-coder').click();
    await expect
      .poll(() => page.getByTestId('agent-log-coder').textContent(), { timeout: 30_000 })
      .toContain(`Line comments answered: ${file}:2 — Please name the greeting after the person.`);
    // …and it is marked as sent.
    await page.getByTestId('review-panel').waitFor();
    await page.locator(`[data-testid="diff-tree-file"][data-path="${file}"] button`).first().click();
    await expect
      .poll(() => page.locator('[data-testid="diff-comment"][data-open="false"]').count(), {
        timeout: 30_000,
      })
      .toBe(1);

    // Approve: the merge commit is on main, in the Files view too.
    await page.getByTestId('btn-approve-pipeline').click();
    await confirm(page, 'confirm-approve-pipeline');
    await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Done');
    const short = (await page.getByTestId('pipeline-merge-commit').textContent()) ?? '';
    const repo = path.join(dataDir, 'repos', projectId);
    const { stdout: main } = await run('git', ['rev-parse', 'main'], { cwd: repo });
    expect(short).toHaveLength(7);
    expect(main.trim().startsWith(short)).toBe(true);
    expect(await page.getByTestId('btn-revert-approval').isVisible()).toBe(true);

    await page.keyboard.press('Escape');
    await page.getByTestId('nav-files').click();
    await page.getByTestId('file-tree').waitFor();
    await expect.poll(() => page.getByText(short, { exact: true }).count()).toBeGreaterThan(0);
    const top = file.split('/')[0] ?? '';
    expect(await page.locator(`[data-testid^="file-tree-"][data-path="${top}"]`).count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 240_000);

  it('names the files of a conflicting approval, resolves them on Request changes, approves, and reverts', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 960 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'conflict@example.com', 'conflict-password');
    const repo = path.join(dataDir, 'repos', projectId);
    const title = 'Add a greeting helper for teams';
    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill(title);
    await page.getByTestId('task-description-input').fill('Greets the whole team at once.');
    await page.getByTestId('task-submit').click();
    await page.getByTestId('task-card').filter({ hasText: title }).click();
    await page.getByTestId('task-drawer').waitFor();
    const taskId = new URL(page.url()).searchParams.get('task') ?? '';
    await page.getByTestId('btn-start-pipeline').click();
    await expect.poll(() => taskStatus(page), { timeout: 90_000 }).toBe('Review');

    // Meanwhile someone commits to main the file the run created (the simulated coder names it
    // after the title), differently.
    const file = 'src/add-a-greeting-helper-for-teams.ts';
    await mkdir(path.join(repo, 'src'), { recursive: true });
    await writeFile(path.join(repo, file), 'export const greetTeam = () => "Hello, team, from main";\n');
    await run('git', ['add', file], { cwd: repo });
    await run(
      'git',
      ['-c', 'user.name=Someone', '-c', 'user.email=someone@example.com', 'commit', '-q', '-m', 'By hand'],
      {
        cwd: repo,
      },
    );
    const mainBefore = (await run('git', ['rev-parse', 'main'], { cwd: repo })).stdout.trim();

    // The approval conflicts: the files are named, nothing is lost, the task stays in Review.
    await page.getByTestId('btn-approve-pipeline').click();
    await confirm(page, 'confirm-approve-pipeline');
    const notice = page.getByTestId('merge-conflict');
    await notice.waitFor({ timeout: 30_000 });
    expect(await notice.getByTestId('merge-conflict-files').textContent()).toContain(file);
    expect(await notice.textContent()).toContain('Request changes merges the default branch');
    expect(await taskStatus(page)).toBe('Review');
    expect((await run('git', ['rev-parse', 'main'], { cwd: repo })).stdout.trim()).toBe(mainBefore);

    // Request changes resolves them; no feedback is needed for that.
    await page.getByTestId('btn-request-changes').click();
    await page.getByTestId('request-changes-conflicts').waitFor();
    await page.getByTestId('request-changes-submit').click();
    await roundAfterChangesPassed(page, server.url);
    await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Review');
    await page.getByTestId('review-panel').waitFor({ timeout: 30_000 });

    await page.getByTestId('btn-approve-pipeline').click();
    await confirm(page, 'confirm-approve-pipeline');
    await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Done');
    const status = await (await page.request.get(`${server.url}/api/pipeline/${taskId}/status`)).json();
    await run('git', ['merge-base', '--is-ancestor', status.headCommit, 'main'], { cwd: repo });
    const merged = (await run('git', ['show', `main:${file}`], { cwd: repo })).stdout;
    expect(merged).not.toMatch(/^(<{7}|={7}|>{7})/m);
    // Both sides kept: the hand-made line and the run's.
    expect(merged).toContain('from main');

    // Revert the approval: a revert commit on main, and the task is back in Review.
    await page.getByTestId('btn-revert-approval').click();
    await confirm(page, 'confirm-revert-approval');
    await expect.poll(() => taskStatus(page), { timeout: 30_000 }).toBe('Review');
    const { stdout: subject } = await run('git', ['log', '-1', '--format=%s', 'main'], { cwd: repo });
    expect(subject).toMatch(/^Revert /);
    // The panel says it happened, naming the revert commit.
    const { stdout: revertSha } = await run('git', ['rev-parse', '--short=7', 'main'], { cwd: repo });
    await expect
      .poll(() => page.getByTestId('pipeline-reverted').textContent(), { timeout: 30_000 })
      .toContain(revertSha.trim());
    expect(await page.getByTestId('btn-approve-pipeline').isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
