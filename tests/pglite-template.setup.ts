import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/server/db/client.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** An empty, migrated PGlite data dir that each test app copies (one initdb per run, not per app). */
    pgliteTemplate: string;
  }
}

export default async function setup(project: TestProject) {
  const root = await mkdtemp(path.join(tmpdir(), 'autocoder-pglite-template-'));
  const template = path.join(root, 'pglite');
  const database = await openDatabase({ dataDir: template });
  await database.close();
  project.provide('pgliteTemplate', template);
  return () => rm(root, { recursive: true, force: true });
}
