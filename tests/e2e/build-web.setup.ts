import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { hasChromium } from './browser.js';

/** The journeys' server processes serve the built web app (dist/web): build it once per run. */
export default async function setup() {
  if (!hasChromium) return;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
}
