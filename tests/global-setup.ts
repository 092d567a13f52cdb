import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/server/db/client.js';
import { hasChromium } from './e2e/browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An empty, migrated PGlite data dir that each test file copies (one initdb per run, not per file). */
    pgliteTemplate: string;
  }
}

let templateRoot: string | undefined;

export default async function setup(project: TestProject) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  templateRoot = await mkdtemp(path.join(tmpdir(), 'autocoder-pglite-template-'));
  const template = path.join(templateRoot, 'pglite');
  const database = await openDatabase({ dataDir: template });
  await database.close();
  project.provide('pgliteTemplate', template);
  // The browser journeys run the real server, which serves the built web app (dist/web).
  if (hasChromium) await build({ configFile: path.join(root, 'vite.config.ts'), logLevel: 'warn' });
  return async () => {
    if (templateRoot) await rm(templateRoot, { recursive: true, force: true });
  };
}
