import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { users } from '@/server/db/schema.js';
import { createTestApp, type TestApp, TestClient } from '@/server/testing/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  // A real constraint the test can provoke: the database refuses the first project of "refused-" accounts.
  await t.database.db.execute(
    sql.raw(`create function refuse_project() returns trigger language plpgsql as $$
      begin
        if exists (select 1 from users where id = new.user_id and email like 'refused-%') then
          raise exception 'project refused by the test';
        end if;
        return new;
      end $$`),
  );
  await t.database.db.execute(
    sql.raw(
      'create trigger refuse_project before insert on projects for each row execute function refuse_project()',
    ),
  );
});
afterAll(async () => t.close());

const register = (app: TestApp, email: string) =>
  new TestClient(app.app).post('/api/auth/register', { email, password: 'longenough' });
const accounts = async (app: TestApp, email: string) =>
  (await app.database.db.select().from(users).where(eq(users.email, email))).length;
const repositories = async (app: TestApp) => readdir(path.join(app.deps.dataDir, 'repos')).catch(() => []);

describe('register: the account and its first project are made together or not at all', () => {
  it('leaves no user and no repository behind when the project cannot be saved', async () => {
    expect((await register(t, 'first@example.com')).status).toBe(201);
    const before = await repositories(t);
    const res = await register(t, 'refused-1@example.com');
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ error: 'INTERNAL_ERROR' });
    expect(await accounts(t, 'refused-1@example.com')).toBe(0);
    expect(await repositories(t)).toEqual(before);
    // Nothing half-made blocks the email: once the database accepts the project, the same email registers.
    await t.database.db.execute(sql.raw('drop trigger refuse_project on projects'));
    expect((await register(t, 'refused-1@example.com')).status).toBe(201);
    expect(await accounts(t, 'refused-1@example.com')).toBe(1);
  });

  it('leaves no user behind when the repository cannot be made', async () => {
    const app = await createTestApp();
    try {
      // The repositories' folder is a file: git cannot make the project's repository.
      await writeFile(path.join(app.deps.dataDir, 'repos'), 'not a directory');
      expect((await register(app, 'no-repo@example.com')).status).toBe(500);
      expect(await accounts(app, 'no-repo@example.com')).toBe(0);
      await rm(path.join(app.deps.dataDir, 'repos'));
      expect((await register(app, 'no-repo@example.com')).status).toBe(201);
    } finally {
      await app.close();
    }
  });
});
