import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { agentGit } from './agent-git.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

/** The message holds markup on purpose: an agent's text must show as text. */
const MESSAGE = 'Move <b>auth</b> to sessions & drop the cookie hack.';

describe.skipIf(!hasChromium)('the import graph in Chromium, locks live from agents over REST', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;
  let work: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-graph-'));
    work = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-graph-clone-'));
    server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(work, { recursive: true, force: true });
  });

  const { git, commitFiles } = agentGit(() => work);

  /** An agent's REST call with its own token. */
  async function postStatus(token: string, body: Record<string, unknown>) {
    const res = await fetch(`${server.url}/api/post_status`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { success: boolean; orchestration: { action: string } };
  }

  const legendFiles = (page: Page, agent: string) =>
    page
      .getByTestId('legend-holder')
      .filter({ has: page.getByTestId('legend-holder-name').getByText(agent, { exact: true }) })
      .getByTestId('legend-file');

  it('shows a file an agent writes as locked by it; a click on it shows who and why; locks and pushes follow live', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = collectErrors(page);
    // Graphs answered (a request the page dropped, as React's StrictMode does on mount, never is).
    const graphAnswers: string[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname === '/api/graph') graphAnswers.push(response.url());
    });
    const projectId = await registerOnPage(page, server.url, 'graph@example.com', 'graph-password');
    const repoUrl = `${server.url}/git/${projectId}.git`;

    // Two agents, each with its own token (as Settings → Agent tokens makes them).
    const token = async (name: string) => {
      const res = await page.request.post(`${server.url}/api/tokens`, {
        data: { name },
        headers: { origin: server.url },
      });
      expect(res.status()).toBe(201);
      return ((await res.json()) as { token: string }).token;
    };
    const smith = await token('Agent Smith');
    const jones = await token('Agent Jones');

    // The new project's repository has no source yet: the graph says so.
    await page.getByTestId('nav-graph').click();
    await page.waitForURL(/\/graph$/);
    await page.getByText('No source files on main yet').waitFor();

    // Smith clones over AutoCoder's remote and pushes three files that import each other.
    await git(['clone', '--quiet', repoUrl.replace('://', `://agent:${smith}@`), 'clone']);
    const clone = path.join(work, 'clone');
    const head = await commitFiles(
      clone,
      {
        'src/db.ts': 'export const db = {};\n',
        'src/auth.ts': "import { db } from './db';\nexport const auth = db;\n",
        'src/app.ts': "import { auth } from './auth';\nexport default auth;\n",
      },
      'Three files',
    );

    // The push moved main: the page fetches the graph of the new head by itself.
    await page.getByTestId('graph-view').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('graph-view').getAttribute('data-version')).toBe(head);
    await expect.poll(() => page.getByTestId('graph-canvas').getAttribute('data-nodes')).toBe('3');

    // Smith takes a WRITING lock over REST: the file shows as Smith's, live, without a refetch.
    expect(
      await postStatus(smith, {
        repo_url: repoUrl,
        branch: 'main',
        file_paths: ['src/auth.ts'],
        status: 'WRITING',
        message: MESSAGE,
      }),
    ).toMatchObject({ success: true, orchestration: { action: 'PROCEED' } });
    await expect.poll(() => legendFiles(page, 'Agent Smith').allTextContents()).toEqual(['src/auth.ts']);
    expect(await legendFiles(page, 'Agent Smith').getAttribute('data-status')).toBe('WRITING');

    // Find the file, zoom to it, close the panel the search opened; then click the file itself.
    await page
      .getByTestId('graph-canvas')
      .and(page.locator('[data-layout="done"]'))
      .waitFor({ timeout: 20_000 });
    await page.getByTestId('graph-search').fill('auth');
    await page.getByTestId('graph-search').press('Enter');
    await page.getByTestId('file-panel').waitFor();
    await page.getByTestId('file-panel').getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('file-panel').waitFor({ state: 'detached' });
    await page.waitForTimeout(700); // the camera's 400 ms move to the file
    const box = await page.getByTestId('graph-canvas').boundingBox();
    if (!box) throw new Error('the canvas is not visible');
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);

    const panel = page.getByTestId('file-panel');
    await panel.waitFor();
    expect(await panel.getByTestId('file-panel-path').textContent()).toBe('src/auth.ts');
    expect(await panel.getByTestId('file-lock-agent').textContent()).toBe('Agent Smith');
    expect(await panel.getByTestId('file-lock-status').textContent()).toBe('WRITING');
    expect(await panel.getByTestId('file-lock-message').textContent()).toBe(`“${MESSAGE}”`);
    expect(await panel.locator('b').count()).toBe(0);
    expect(await panel.getByTestId('file-imports').getByRole('button').allTextContents()).toEqual([
      'src/db.ts',
    ]);
    expect(await panel.getByTestId('file-importers').getByRole('button').allTextContents()).toEqual([
      'src/app.ts',
    ]);

    // Jones reads the file: listed under it, still Smith's colour. Smith pushes and opens it: Jones's.
    await postStatus(jones, {
      repo_url: repoUrl,
      branch: 'main',
      file_paths: ['src/auth.ts'],
      status: 'READING',
      message: 'Reading auth to learn the session shape.',
    });
    await expect
      .poll(() => panel.getByTestId('file-lock-agent').allTextContents())
      .toEqual(['Agent Smith', 'Agent Jones']);
    const next = await commitFiles(
      clone,
      { 'src/session.ts': "import { auth } from './auth';\nexport const session = auth;\n" },
      'Sessions',
    );
    expect(
      await postStatus(smith, {
        repo_url: repoUrl,
        branch: 'main',
        file_paths: ['src/auth.ts'],
        status: 'OPEN',
        message: 'Sessions are in.',
        new_repo_head: next,
      }),
    ).toMatchObject({ success: true, orchestration: { action: 'PROCEED' } });
    await expect.poll(() => panel.getByTestId('file-lock-agent').allTextContents()).toEqual(['Agent Jones']);
    await expect.poll(() => legendFiles(page, 'Agent Smith').count()).toBe(0);

    // The push moved main once more: the new head's graph, with the new file among the importers.
    await expect.poll(() => page.getByTestId('graph-view').getAttribute('data-version')).toBe(next);
    await expect.poll(() => page.getByTestId('graph-canvas').getAttribute('data-nodes')).toBe('4');
    await expect
      .poll(() => panel.getByTestId('file-importers').getByRole('button').allTextContents())
      .toEqual(['src/app.ts', 'src/session.ts']);
    // One fetch per head (the empty one, then after each push); lock events refetched nothing.
    expect(graphAnswers).toHaveLength(3);
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);
});
