import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../src/server/testing/server-process.js';
import { GRAPH_PALETTES } from '../../src/web/features/graph/utils/graph-palette.js';
import { agentGit } from './agent-git.js';
import { collectErrors, hasChromium, launchBrowser, registerOnPage } from './browser.js';

/** A small web app: 30 files in five folders, two of them named index.ts, importing each other. */
function smallProject(): Record<string, string> {
  const files: Record<string, string> = {};
  const lib = ['db', 'log', 'config', 'cache', 'errors', 'session'];
  const models = ['user', 'order', 'product', 'invoice'];
  const routes = ['users', 'orders', 'products', 'invoices', 'health'];
  const ui = ['button', 'card', 'table', 'modal', 'nav', 'theme'];
  for (const name of lib) files[`src/lib/${name}.ts`] = `export const ${name} = {};\n`;
  files['src/lib/http.ts'] = "import { errors } from './errors';\nexport const http = errors;\n";
  for (const name of models)
    files[`src/models/${name}.ts`] = `import { db } from '../lib/db';\nexport const ${name} = db;\n`;
  for (const name of routes) {
    const model = models.find((m) => name.startsWith(m));
    files[`src/routes/${name}.ts`] = [
      "import { http } from '../lib/http';",
      "import { log } from '../lib/log';",
      model ? `import { ${model} } from '../models/${model}';` : '',
      `export const ${name} = [http, log];`,
      '',
    ].join('\n');
  }
  files['src/routes/index.ts'] = `${routes.map((r) => `export * from './${r}';`).join('\n')}\n`;
  for (const name of ui)
    files[`src/ui/${name}.tsx`] = `import { theme } from './theme';\nexport const ${name}x = theme;\n`;
  files['src/ui/index.ts'] = `${ui.map((u) => `export * from './${u}';`).join('\n')}\n`;
  files['src/app.ts'] =
    "import * as routes from './routes';\nimport * as ui from './ui';\nimport { session } from './lib/session';\nexport const app = { routes, ui, session };\n";
  files['src/main.ts'] =
    "import { app } from './app';\nimport { config } from './lib/config';\nexport default [app, config];\n";
  files['src/cache-warm.ts'] = "import { cache } from './lib/cache';\nexport const warm = cache;\n";
  for (const [job, model] of [
    ['email', 'user'],
    ['cleanup', 'order'],
    ['report', 'invoice'],
  ])
    files[`src/jobs/${job}.ts`] =
      `import { log } from '../lib/log';\nimport { ${model} } from '../models/${model}';\nexport const ${job} = [log, ${model}];\n`;
  return files;
}

/** Hundreds of plugins, each importing only the registry: many small files and one big one. */
function pluginFiles(count: number): Record<string, string> {
  const files: Record<string, string> = {
    'plugins/registry.ts': 'export const registry = new Map();\n',
  };
  for (let i = 0; i < count; i++) {
    const name = `plugin-${String(i).padStart(3, '0')}`;
    files[`plugins/${name}.ts`] = `import { registry } from './registry';\nregistry.set('${name}', ${i});\n`;
  }
  return files;
}

const baseName = (file: string) => file.slice(file.lastIndexOf('/') + 1);
const sorted = (names: string[]) => [...names].sort();

interface DrawnLabel {
  label: string;
  x: number;
  y: number;
}

/** What sigma drew on the canvas in its last frame, as the canvas element reports it. */
async function drawn(canvas: Locator) {
  const attributes = await canvas.evaluate((element: HTMLElement) => ({ ...element.dataset }));
  return {
    layout: attributes.layout,
    labels: JSON.parse(attributes.renderedLabels ?? '[]') as DrawnLabel[],
    count: Number(attributes.renderedLabelCount ?? 0),
    colour: attributes.labelColour,
    ratio: attributes.cameraRatio,
    hover: attributes.hoverLabel,
  };
}

describe.skipIf(!hasChromium)('file names on the import graph, in Chromium', () => {
  let server: ServerProcess;
  let browser: Browser;
  let dataDir: string;
  let work: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-graph-labels-'));
    work = await mkdtemp(path.join(tmpdir(), 'autocoder-e2e-graph-labels-clone-'));
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

  /** The graph of `head`, laid out and drawn. */
  async function graphDrawn(page: Page, head: string, files: number) {
    await expect
      .poll(() => page.getByTestId('graph-view').getAttribute('data-version'), { timeout: 60_000 })
      .toBe(head);
    const canvas = page.getByTestId('graph-canvas');
    await expect.poll(() => canvas.getAttribute('data-nodes'), { timeout: 30_000 }).toBe(String(files));
    await expect.poll(() => canvas.getAttribute('data-layout'), { timeout: 60_000 }).toBe('done');
    return canvas;
  }

  it('names every file of a small project, shows a file’s path on hover, and names fewer files of a big one zoomed out', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors = collectErrors(page);
    const projectId = await registerOnPage(page, server.url, 'labels@example.com', 'labels-password');
    const repoUrl = `${server.url}/git/${projectId}.git`;
    const res = await page.request.post(`${server.url}/api/tokens`, {
      data: { name: 'Agent Labels' },
      headers: { origin: server.url },
    });
    expect(res.status()).toBe(201);
    const { token } = (await res.json()) as { token: string };

    await page.getByTestId('nav-graph').click();
    await page.waitForURL(/\/graph$/);
    await page.getByText('No source files on main yet').waitFor();

    await git(['clone', '--quiet', repoUrl.replace('://', `://agent:${token}@`), 'clone']);
    const clone = path.join(work, 'clone');
    const small = smallProject();
    const smallFiles = Object.keys(small);
    expect(smallFiles).toHaveLength(30);
    const head = await commitFiles(clone, small, 'A small web app');
    await page.getByTestId('graph-view').waitFor({ timeout: 60_000 });
    const canvas = await graphDrawn(page, head, smallFiles.length);

    // The fitted view names every file, by its file name: the names sigma drew in its last frame.
    await expect
      .poll(async () => sorted((await drawn(canvas)).labels.map((drawnLabel) => drawnLabel.label)), {
        timeout: 30_000,
      })
      .toEqual(sorted(smallFiles.map(baseName)));
    expect((await drawn(canvas)).ratio).toBe('1.00');
    expect((await drawn(canvas)).colour).toBe(GRAPH_PALETTES.light.label);

    // The pointer on a file (clear of the legend above the canvas): sigma draws its full path.
    const box = await canvas.boundingBox();
    const legend = await page.getByTestId('lock-legend').locator('xpath=..').boundingBox();
    if (!box || !legend) throw new Error('the canvas or the legend is not visible');
    const clearOfLegend = ({ x, y }: DrawnLabel) =>
      x > 20 &&
      y > 20 &&
      x < box.width - 20 &&
      y < box.height - 20 &&
      !(box.x + x < legend.x + legend.width + 10 && box.y + y < legend.y + legend.height + 10);
    const unique = new Set(
      smallFiles.map(baseName).filter((name, _i, all) => all.indexOf(name) === all.lastIndexOf(name)),
    );
    // The pointer goes to where a file was drawn, again only if it was drawn elsewhere since.
    let hovered = '';
    let pointedAt = '';
    await expect
      .poll(
        async () => {
          const now = await drawn(canvas);
          if (hovered && now.hover === hovered) return 'shows its path';
          // The file farthest from any other, so that no other file is under the pointer.
          const room = (l: DrawnLabel) =>
            Math.min(...now.labels.filter((o) => o !== l).map((o) => Math.hypot(o.x - l.x, o.y - l.y)));
          const target = now.labels
            .filter((l) => unique.has(l.label) && clearOfLegend(l))
            .sort((a, b) => room(b) - room(a))[0];
          if (!target) return 'no file clear of the legend';
          const at = `${target.label}@${target.x},${target.y}`;
          if (at !== pointedAt) {
            pointedAt = at;
            hovered = smallFiles.find((file) => baseName(file) === target.label) ?? '';
            await page.mouse.move(box.x + 5, box.y + box.height - 5);
            await page.mouse.move(box.x + target.x, box.y + target.y);
          }
          return `no path drawn for ${hovered} (${now.hover ?? 'none'})`;
        },
        { timeout: 30_000 },
      )
      .toBe('shows its path');
    expect(hovered).toContain('/');
    // The pointer leaves: no path drawn.
    await page.mouse.move(box.x + 5, box.y + box.height - 5);
    await expect.poll(async () => (await drawn(canvas)).hover).toBeUndefined();

    // The dark theme: the names are drawn again, in its colour.
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(async () => (await drawn(canvas)).colour).toBe(GRAPH_PALETTES.dark.label);
    expect((await drawn(canvas)).count).toBe(smallFiles.length);
    await page.emulateMedia({ colorScheme: 'light' });

    // Hundreds of files more: the fitted view names only some of them.
    const plugins = pluginFiles(300);
    const total = smallFiles.length + Object.keys(plugins).length;
    const bigHead = await commitFiles(clone, plugins, 'Three hundred plugins');
    const big = await graphDrawn(page, bigHead, total);
    await expect.poll(async () => (await drawn(big)).ratio).toBe('1.00');
    const fitted = (await drawn(big)).count;
    expect(fitted).toBeGreaterThan(0);
    expect(fitted).toBeLessThan(total);

    // Zoomed out (the wheel, twice: the camera's ratio 1.7, then 2.89): fewer names, the registry's
    // (imported by every plugin) among them.
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.mouse.move(centre.x, centre.y);
    await page.mouse.wheel(0, 120);
    await expect.poll(async () => (await drawn(big)).ratio).toBe('1.70');
    await page.mouse.wheel(0, 120);
    await expect.poll(async () => (await drawn(big)).ratio).toBe('2.89');
    const out = await drawn(big);
    expect(out.count).toBeGreaterThan(0);
    expect(out.count).toBeLessThan(fitted);
    expect(out.labels.map((l) => l.label)).toContain('registry.ts');

    expect(errors).toEqual([]);
    await page.close();
  }, 300_000);
});
