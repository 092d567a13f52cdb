import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { agentTakesLock, collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

const WIDTH = 390;
const STATUSES = ['backlog', 'spec', 'building', 'review', 'done'] as const;

interface Box {
  name: string;
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Every visible link, button, input and select of the app's header, with its box. */
function headerBoxes(page: Page): Promise<Box[]> {
  return page.evaluate(() => {
    const header = document.querySelector('[data-testid="app-header"]');
    if (!header) throw new Error('no app header');
    return [...header.querySelectorAll<HTMLElement>('a, button, input, select')].flatMap((element) => {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0 || getComputedStyle(element).visibility === 'hidden')
        return [];
      const name =
        element.getAttribute('data-testid') ??
        element.getAttribute('aria-label') ??
        element.textContent?.trim() ??
        element.tagName;
      return [{ name, left: rect.left, right: rect.right, top: rect.top, bottom: rect.bottom }];
    });
  });
}

/** The pairs of boxes that overlap (sharing an edge is not overlapping). */
function overlapping(boxes: Box[]): string[] {
  const found: string[] = [];
  for (const [index, a] of boxes.entries())
    for (const b of boxes.slice(index + 1)) {
      const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (x > 0.5 && y > 0.5) found.push(`${a.name} × ${b.name}`);
    }
  return found;
}

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** The elements inside `testId`'s box that reach past the viewport's left or right edge. */
function pastTheEdges(page: Page, testId: string): Promise<string[]> {
  return page.evaluate(
    ([id, width]) => {
      const root = document.querySelector(`[data-testid="${id}"]`);
      if (!root) throw new Error(`no ${id}`);
      return [root, ...root.querySelectorAll('*')].flatMap((element) => {
        const rect = element.getBoundingClientRect();
        if (rect.width === 0 || rect.height === 0) return [];
        return rect.left < -0.5 || rect.right > width + 0.5
          ? [`${element.tagName} ${element.getAttribute('data-testid') ?? ''} ${rect.left}..${rect.right}`]
          : [];
      });
    },
    [testId, WIDTH] as const,
  );
}

async function boxOf(page: Page, testId: string) {
  const box = await page.getByTestId(testId).boundingBox();
  if (!box) throw new Error(`${testId} is not visible`);
  return box;
}

/** Issue 27 item 6: the board at phone width (390 px), measured from the DOM. */
describe.skipIf(!hasChromium)('the board at phone width (390 px) in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-phone-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a header that fits, a column switcher with counts, a full-screen drawer, Activity in a sheet', async () => {
    const page = await browser.newPage({
      viewport: { width: WIDTH, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'phone@example.com', 'phone-password');
    const card = (title: string) => page.getByTestId('task-card').filter({ hasText: title });
    const column = (status: string) => page.getByTestId(`column-${status}`);
    const tab = (status: string) => page.getByTestId(`column-tab-${status}`);

    // The header: brand, project switcher and its buttons, the four views, Settings, the theme, log
    // out — all on screen, none over another.
    await page.getByTestId('logout').waitFor({ timeout: 30_000 });
    await page.getByTestId('nav-services').waitFor({ timeout: 30_000 });
    await expect
      .poll(async () => (await headerBoxes(page)).map((box) => box.name).sort())
      .toEqual(
        [
          'AutoCoder home',
          'project-switcher',
          'project-create',
          'project-settings',
          'project-delete',
          'nav-board',
          'nav-files',
          'nav-graph',
          'nav-services',
          'nav-settings',
          'theme-toggle',
          'logout',
        ].sort(),
      );
    const header = await headerBoxes(page);
    expect(overlapping(header)).toEqual([]);
    for (const box of header) {
      expect(box.left, box.name).toBeGreaterThanOrEqual(0);
      expect(box.right, box.name).toBeLessThanOrEqual(WIDTH);
    }
    // The views keep their names for screen readers while only their icons show.
    await page.getByRole('link', { name: 'Services' }).waitFor();

    // Three tasks, all in the Backlog.
    for (const title of ['Write the welcome page', 'Fix the crash on save', 'Polish the copy']) {
      await page.getByTestId('new-task').click();
      await page.getByTestId('task-title-input').fill(title);
      await page.getByTestId('task-submit').click();
      await page.getByTestId('task-title-input').waitFor({ state: 'detached', timeout: 30_000 });
      await card(title).waitFor({ timeout: 30_000 });
    }
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);

    // The drawer fills the screen; its moves take a task to another column (no dragging needed).
    await card('Fix the crash on save').click();
    const drawer = page.getByTestId('task-drawer');
    await drawer.getByTestId('task-status').waitFor({ timeout: 30_000 });
    const drawerBox = await boxOf(page, 'task-drawer');
    expect(drawerBox.x).toBe(0);
    expect(drawerBox.width).toBe(WIDTH);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);
    expect(await pastTheEdges(page, 'task-drawer')).toEqual([]);
    await drawer.getByTestId('task-move-spec').click();
    await expect
      .poll(() => drawer.getByTestId('task-status').textContent(), { timeout: 30_000 })
      .toBe('Spec');
    const close = drawer.getByRole('button', { name: 'Close', exact: true });
    const closeBox = await close.boundingBox();
    if (!closeBox) throw new Error('the drawer has no visible close button');
    expect(closeBox.x).toBeGreaterThanOrEqual(0);
    expect(closeBox.x + closeBox.width).toBeLessThanOrEqual(WIDTH);
    expect(closeBox.y).toBeGreaterThanOrEqual(0);
    await close.click();
    await drawer.waitFor({ state: 'detached', timeout: 30_000 });

    // The column switcher names every column with its count; one column shows, the whole width.
    const expected = { backlog: 2, spec: 1, building: 0, review: 0, done: 0 };
    for (const status of STATUSES)
      await expect
        .poll(() => page.getByTestId(`column-tab-${status}-count`).textContent(), { timeout: 30_000 })
        .toBe(String(expected[status]));
    await page.getByRole('tab', { name: 'Backlog 2 tasks' }).waitFor();
    await page.getByRole('tab', { name: 'Spec 1 task' }).waitFor();
    expect(await tab('backlog').getAttribute('aria-selected')).toBe('true');
    const visibleColumns = () =>
      Promise.all(STATUSES.map(async (status) => ((await column(status).isVisible()) ? status : null))).then(
        (shown) => shown.filter(Boolean),
      );
    expect(await visibleColumns()).toEqual(['backlog']);
    expect(await column('backlog').getByTestId('task-card').count()).toBe(2);
    const backlogBox = await boxOf(page, 'column-backlog');
    expect(backlogBox.x).toBeGreaterThanOrEqual(0);
    expect(backlogBox.x + backlogBox.width).toBeLessThanOrEqual(WIDTH);
    expect(backlogBox.width).toBeGreaterThan(WIDTH - 40);
    const tabs = await Promise.all(
      STATUSES.map(async (status) => ({ ...(await boxOf(page, `column-tab-${status}`)), status })),
    );
    expect(
      overlapping(
        tabs.map((box) => ({
          name: box.status,
          left: box.x,
          right: box.x + box.width,
          top: box.y,
          bottom: box.y + box.height,
        })),
      ),
    ).toEqual([]);
    for (const box of tabs) expect(box.x + box.width).toBeLessThanOrEqual(WIDTH);

    await tab('spec').click();
    await expect.poll(visibleColumns).toEqual(['spec']);
    expect(await tab('spec').getAttribute('aria-selected')).toBe('true');
    expect(await column('spec').getByTestId('task-card').allTextContents()).toEqual([
      expect.stringContaining('Fix the crash on save'),
    ]);
    await tab('done').click();
    await expect.poll(visibleColumns).toEqual(['done']);
    await column('done').getByText('No tasks').waitFor();
    await tab('spec').click();
    await expect.poll(visibleColumns).toEqual(['spec']);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);

    // The chosen column is kept while a task is opened and closed.
    await card('Fix the crash on save').click();
    await drawer.getByTestId('task-status').waitFor({ timeout: 30_000 });
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await visibleColumns()).toEqual(['spec']);
    expect(await tab('spec').getAttribute('aria-selected')).toBe('true');

    // Activity: an agent takes a lock; the Activity button opens the feed over the whole screen.
    await agentTakesLock(page, server.url, projectId, {
      name: 'Agent Smith',
      file: 'src/auth.ts',
      message: 'Smith moves auth to sessions.',
    });

    const openActivity = page.getByRole('button', { name: 'Activity' });
    await openActivity.click();
    const sheet = page.getByTestId('activity-sheet');
    const entry = sheet.getByTestId('activity-entry').filter({ hasText: 'Smith moves auth to sessions.' });
    await entry.waitFor({ timeout: 30_000 });
    expect(await entry.textContent()).toContain('Agent Smith locked (WRITING) src/auth.ts');
    const sheetBox = await boxOf(page, 'activity-sheet');
    expect(sheetBox.x).toBe(0);
    expect(sheetBox.width).toBe(WIDTH);
    expect(await scrollWidth(page)).toBeLessThanOrEqual(WIDTH);
    expect(await pastTheEdges(page, 'activity-sheet')).toEqual([]);
    await sheet.getByRole('button', { name: 'Close', exact: true }).click();
    await sheet.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await visibleColumns()).toEqual(['spec']);

    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
