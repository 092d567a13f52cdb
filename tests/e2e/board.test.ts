import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

describe.skipIf(!hasChromium)('board journey in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-board-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const cards = (page: Page) => page.getByTestId('task-card');
  const card = (page: Page, title: string) => cards(page).filter({ hasText: title });

  async function addTask(page: Page, title: string, category?: string) {
    await page.getByTestId('new-task').click();
    await page.getByTestId('task-title-input').fill(title);
    if (category) await page.getByTestId('task-category-select').selectOption(category);
    await page.getByTestId('task-submit').click();
    await expect.poll(() => card(page, title).count()).toBe(1);
  }

  it('shows a signed-out visitor the sign-in page without a console error', async () => {
    const page = await browser.newPage();
    const errors = collectErrors(page, { allowHttpErrors: false });
    await page.goto(server.url);
    await page.waitForURL(/\/login/);
    await page.getByTestId('login-email').waitFor();
    await page.waitForLoadState('networkidle');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('register → create a project → add tasks → drag a card → filter → reload → log out', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = collectErrors(page);
    await registerOnPage(page, server.url, 'journey@example.com', 'journey-password');

    // A second project, created from the switcher.
    await page.getByTestId('project-create').click();
    await page.getByTestId('project-name-input').fill('Journey project');
    await page.getByTestId('project-submit').click();
    await expect
      .poll(async () =>
        (await page.getByTestId('project-switcher').locator('option:checked').textContent())?.trim(),
      )
      .toBe('Journey project');
    const projectUrl = page.url();

    // Its settings: the repository's check, refused below 10 s, then saved and shown again.
    await page.getByTestId('project-settings').click();
    await page.getByTestId('project-check-command').fill('npm test');
    await page.getByTestId('project-check-timeout').fill('5');
    await page.getByTestId('project-submit').click();
    await page.getByText('at least 10 seconds').waitFor();
    await page.getByTestId('project-check-timeout').fill('120');
    await page.getByTestId('project-submit').click();
    await page.getByTestId('project-check-command').waitFor({ state: 'detached' });
    await page.getByTestId('project-settings').click();
    expect(await page.getByTestId('project-check-command').inputValue()).toBe('npm test');
    expect(await page.getByTestId('project-check-timeout').inputValue()).toBe('120');
    await page.keyboard.press('Escape');
    await page.getByTestId('project-check-command').waitFor({ state: 'detached' });

    await addTask(page, 'Write the welcome page');
    await addTask(page, 'Fix the crash on save', 'bug');
    await addTask(page, 'Second pass on copy');
    await expect.poll(() => page.getByTestId('column-backlog').getByTestId('task-card').count()).toBe(3);

    // Drag "Fix the crash on save" from Backlog to Spec with the mouse.
    const source = await card(page, 'Fix the crash on save').boundingBox();
    const target = await page.getByTestId('column-spec').boundingBox();
    if (!source || !target) throw new Error('card or column not visible');
    await page.mouse.move(source.x + source.width / 2, source.y + source.height / 2);
    await page.mouse.down();
    await page.mouse.move(source.x + source.width / 2 + 10, source.y + source.height / 2 + 10, { steps: 5 });
    await page.mouse.move(target.x + target.width / 2, target.y + 80, { steps: 15 });
    await page.mouse.up();
    await expect.poll(() => card(page, 'Fix the crash on save').getAttribute('data-status')).toBe('spec');

    // Filter by category, then search.
    await page.getByTestId('filter-category').selectOption('bug');
    await expect
      .poll(() => cards(page).allTextContents())
      .toEqual([expect.stringContaining('Fix the crash on save')]);
    await page.getByTestId('filter-category').selectOption('');
    await page.getByTestId('filter-search').fill('second');
    await expect.poll(() => cards(page).count()).toBe(1);
    await expect.poll(() => card(page, 'Second pass on copy').count()).toBe(1);

    // Reload the board, filters cleared: everything is where it was left.
    await page.goto(projectUrl.split('?')[0] ?? projectUrl);
    await expect.poll(() => cards(page).count()).toBe(3);
    expect(await card(page, 'Fix the crash on save').getAttribute('data-status')).toBe('spec');
    expect(await page.getByTestId('column-backlog').getByTestId('task-card').count()).toBe(2);

    await page.getByTestId('logout').click();
    await page.waitForURL(/\/login/);
    await page.goto(projectUrl);
    await page.waitForURL(/\/login/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is usable at phone width: the board scrolls and a task can be created', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${server.url}/login`);
    await page.getByTestId('login-email').fill('journey@example.com');
    await page.getByTestId('login-password').fill('journey-password');
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/projects\//);
    await addTask(page, 'Phone task');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await page.close();
  });

  it('revalidates the board with If-None-Match, and opens a card in the drawer with its whole task', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = collectErrors(page);
    const lists: { ifNoneMatch: string | undefined; status: number }[] = [];
    page.on('response', async (response) => {
      const request = response.request();
      if (request.method() !== 'GET' || new URL(request.url()).pathname !== '/api/tasks') return;
      lists.push({ ifNoneMatch: (await request.allHeaders())['if-none-match'], status: response.status() });
    });
    await page.goto(`${server.url}/login`);
    await page.getByTestId('login-email').fill('journey@example.com');
    await page.getByTestId('login-password').fill('journey-password');
    await page.getByTestId('login-submit').click();
    await page.waitForURL(/\/projects\//);
    await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBeGreaterThan(0);
    // The browser keeps the list (Cache-Control: private, no-cache) and asks whether it changed. It
    // writes its cache entry in the background, which a busy machine can finish after a quick reload:
    // reload until a list request carries the ETag (each reload is a new chance, none is skipped).
    const revalidated = () => lists.some((list) => list.ifNoneMatch?.startsWith('W/"'));
    for (let attempt = 0; attempt < 10 && !revalidated(); attempt++) {
      await page.reload();
      await expect.poll(() => cards(page).count(), { timeout: 10_000 }).toBeGreaterThan(0);
      await expect
        .poll(revalidated, { timeout: 2_000 })
        .toBe(true)
        .catch(() => undefined);
    }
    expect(revalidated(), JSON.stringify(lists)).toBe(true);

    await card(page, 'Phone task').click();
    const drawer = page.getByTestId('task-drawer');
    await expect.poll(() => drawer.getByText('No description').count(), { timeout: 10_000 }).toBe(1);
    expect(await drawer.getByTestId('task-status').textContent()).toBe('Backlog');
    expect(errors).toEqual([]);
    await page.close();
  });
});
