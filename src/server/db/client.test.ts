import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './client.js';
import { users } from './schema.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'autocoder-db-'));
});
afterAll(async () => rm(root, { recursive: true, force: true }));

// Each case runs initdb in WASM at least once: seconds on a quiet machine, far more on a loaded one.
describe('PGlite data directories', { timeout: 120_000 }, () => {
  it('starts from a template copy, keeps data across reopenings, and leaves the template untouched', async () => {
    const template = path.join(root, 'template');
    const built = await openDatabase({ dataDir: template });
    await built.close();

    const dataDir = path.join(root, 'data');
    const first = await openDatabase({ dataDir, templateDir: template });
    await first.db.insert(users).values({ email: 'a@example.com', passwordHash: 'x' });
    expect(first.stats.writes).toBeGreaterThan(0);
    await first.close();

    const again = await openDatabase({ dataDir, templateDir: template });
    expect((await again.db.select().from(users)).map((u) => u.email)).toEqual(['a@example.com']);
    await again.close();

    const pristine = await openDatabase({ dataDir: template });
    expect(await pristine.db.select().from(users)).toEqual([]);
    await pristine.close();
  });

  it('falls back to a fresh database when the template cannot be opened', async () => {
    const broken = path.join(root, 'broken');
    await rm(broken, { recursive: true, force: true });
    await (await import('node:fs/promises')).mkdir(broken, { recursive: true });
    await writeFile(path.join(broken, 'PG_VERSION'), 'not a database\n');
    const dataDir = path.join(root, 'fallback');
    const database = await openDatabase({ dataDir, templateDir: broken });
    expect(await database.db.select().from(users)).toEqual([]);
    await database.close();
    expect(existsSync(path.join(dataDir, 'base'))).toBe(true);
  });
});
