// Builds the web app (Vite → dist/web) and bundles the server (esbuild → dist/server/main.js).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export async function build({ quiet = false } = {}) {
  const started = Date.now();
  const { build: viteBuild } = await import('vite');
  await viteBuild({ configFile: path.join(root, 'vite.config.ts'), logLevel: quiet ? 'warn' : 'info' });
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(root, 'src/server/main.ts')],
    outfile: path.join(root, 'dist/server/main.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: quiet ? 'warning' : 'info',
  });
  await writeFile(path.join(root, 'dist/.build-stamp'), new Date().toISOString());
  if (!quiet) console.log(`built in ${Date.now() - started} ms`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await build();
}
