// The review-page part's server: the built server (dist/server, as `npm run bench` keeps it
// built) serving a production build of the web app of its own, made for this part in a temp dir.
//
// Why not dist/web itself: the e2e tests' global setup (tests/e2e/build-web.setup.ts) rebuilds
// dist/web under vitest, whose NODE_ENV=test bundles React's development build, several times
// slower, and leaves dist/.build-stamp as it was, so `npm run bench` does not rebuild it. On a
// machine where someone runs the e2e tests, dist/web may be such a build, or be replaced while
// the page loads. The server finds its web app beside its bundle (src/server/lib/built-path.ts):
// a copy of dist/server next to the private build serves that build.
import { existsSync } from 'node:fs';
import { cp, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { Health } from '../src/contracts/health.js';
import { baseEnv, RATE_LIMIT_ENV } from './lib/common.js';
import {
  freePort,
  makeTempDir,
  removeTempDir,
  type Spawned,
  spawnGroup,
  waitHealthy,
} from './lib/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Which React a built web app bundles, read from the entry script its index.html names. */
export async function reactBuildOf(webDir: string): Promise<'production' | 'development' | 'missing'> {
  try {
    const html = await readFile(path.join(webDir, 'index.html'), 'utf8');
    const entry = /<script type="module"[^>]* src="\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    if (!entry) return 'missing';
    const script = await readFile(path.join(webDir, entry), 'utf8');
    return script.includes('jsxDEV') ? 'development' : 'production';
  } catch {
    return 'missing';
  }
}

const VITE_BUILD = `
const { build } = await import('vite');
await build({
  configFile: 'vite.config.ts',
  logLevel: 'warn',
  build: { outDir: process.env.REVIEW_BENCH_WEB_OUT, emptyOutDir: true },
});
`;

export interface ReviewPageServer {
  server: Spawned;
  port: number;
  dataDir: string;
  /** The web app it serves. */
  webDir: string;
  /** Building the private web app, ms. */
  webBuildMs: number;
  stop(): Promise<void>;
}

/** Builds the web app for production into a temp dir beside a copy of dist/server, and starts that server. */
export async function startReviewPageServer(env: NodeJS.ProcessEnv): Promise<ReviewPageServer> {
  if (!existsSync(path.join(root, 'dist/server/main.js'))) throw new Error('dist/server is not built');
  const distRoot = await makeTempDir('autocoder-bench-review-dist-');
  const dataDir = await makeTempDir('autocoder-bench-review-page-pglite-');
  let server: Spawned | null = null;
  const stop = async () => {
    await server?.stop();
    await removeTempDir(dataDir);
    await removeTempDir(distRoot);
  };
  try {
    const dist = path.join(distRoot, 'dist');
    await cp(path.join(root, 'dist/server'), path.join(dist, 'server'), { recursive: true });
    if (existsSync(path.join(root, 'dist/pglite-template')))
      await cp(path.join(root, 'dist/pglite-template'), path.join(dist, 'pglite-template'), {
        recursive: true,
      });
    // What the bundle finds above it in a checkout: package.json (ESM; the version), the
    // packages it imports, the migrations.
    await cp(path.join(root, 'package.json'), path.join(distRoot, 'package.json'));
    for (const name of ['node_modules', 'drizzle'])
      await symlink(path.join(root, name), path.join(distRoot, name), 'dir');

    const buildStart = performance.now();
    const build = spawnGroup(process.execPath, ['--input-type=module', '-e', VITE_BUILD], root, {
      ...process.env,
      NODE_ENV: 'production',
      REVIEW_BENCH_WEB_OUT: path.join(dist, 'web'),
    });
    const code = await build.exited;
    await build.stop();
    if (code !== 0) throw new Error(`vite build failed (exit ${code}):\n${build.output()}`);
    const webBuildMs = performance.now() - buildStart;
    const react = await reactBuildOf(path.join(dist, 'web'));
    if (react !== 'production') throw new Error(`the private web build bundles React's ${react} build`);

    const port = await freePort();
    const since = performance.now();
    server = spawnGroup(process.execPath, [path.join(dist, 'server/main.js')], root, {
      ...baseEnv(),
      PORT: String(port),
      HOST: '127.0.0.1',
      AUTOCODER_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      [RATE_LIMIT_ENV]: '1000000',
      ...env,
    });
    const health = await waitHealthy(port, server, since, { intervalMs: 20 });
    const served = (JSON.parse(health.body) as Health).database;
    if (served !== 'pglite') throw new Error(`the server runs on ${served}, expected pglite`);
    return { server, port, dataDir, webDir: path.join(dist, 'web'), webBuildMs, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
