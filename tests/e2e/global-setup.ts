import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { hasChromium } from './browser.js';

/** Builds the web app once (dist/web) so that the server processes of the journeys serve it. */
export default async function setup() {
  if (!hasChromium) return;
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
}
