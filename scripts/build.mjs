// Builds the web app (Vite → dist/web) and bundles the server (esbuild → dist/server/main.js and its chunks).
import { copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function build({ quiet = false } = {}) {
  const started = Date.now();
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: path.join(root, 'vite.config.ts'), logLevel: quiet ? 'warn' : 'info' });
  const esbuild = await import('esbuild');
  // main.js opens the database, then loads serve.js (the rest of the server) while it opens: split
  // into chunks beside main.js, so that the API's own imports load only then (see src/server/main.ts).
  await rm(path.join(root, 'dist/server'), { recursive: true, force: true });
  await esbuild.build({
    entryPoints: [path.join(root, 'src/server/main.ts')],
    outdir: path.join(root, 'dist/server'),
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    splitting: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: quiet ? 'warning' : 'info',
  });
  // PGlite's worker thread runs as plain JavaScript beside the bundle (see src/server/db/pglite-thread.ts).
  await copyFile(
    path.join(root, 'src/server/db/pglite-worker.mjs'),
    path.join(root, 'dist/server/pglite-worker.mjs'),
  );
  // So does the launcher of git commands (see src/server/lib/spawner.ts).
  await copyFile(
    path.join(root, 'src/server/lib/spawner-process.mjs'),
    path.join(root, 'dist/server/spawner-process.mjs'),
  );
  // So does the pre-receive hook of pushes, alone in its directory (core.hooksPath; see
  // src/server/modules/git-http/push-policy.ts). copyFile keeps its executable mode.
  await mkdir(path.join(root, 'dist/server/git-hooks'));
  await copyFile(
    path.join(root, 'src/server/modules/git-http/hooks/pre-receive'),
    path.join(root, 'dist/server/git-hooks/pre-receive'),
  );
  // And the network bridge a sandbox runs when the host has no socat (see src/server/modules/sandbox/egress/bridge.ts).
  await copyFile(
    path.join(root, 'src/server/modules/sandbox/egress/bridge-process.mjs'),
    path.join(root, 'dist/server/bridge-process.mjs'),
  );
  // And the JS/TS import parser of the graph (see src/server/modules/graph/js-imports.ts).
  await copyFile(
    path.join(root, 'src/server/modules/graph/parser-process.mjs'),
    path.join(root, 'dist/server/parser-process.mjs'),
  );
  await buildDatabaseTemplate();
  await writeFile(path.join(root, 'dist/.build-stamp'), new Date().toISOString());
  if (!quiet) console.log(`built in ${Date.now() - started} ms`);
}

/**
 * An empty, migrated PGlite database, made once here so that a first start copies it (about a
 * second) instead of running initdb in WASM (several seconds). The server falls back to a
 * fresh initdb when it is missing or cannot be opened.
 */
async function buildDatabaseTemplate() {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const target = path.join(root, 'dist/pglite-template');
  const scratch = `${target}.tmp`;
  await rm(scratch, { recursive: true, force: true });
  const client = new PGlite(scratch);
  await migrate(drizzle(client), { migrationsFolder: path.join(root, 'drizzle') });
  await client.close();
  await rm(target, { recursive: true, force: true });
  await rename(scratch, target);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build();
}
