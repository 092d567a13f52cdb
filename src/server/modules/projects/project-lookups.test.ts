import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projects } from '@/server/db/schema.js';
import { AppError } from '@/server/lib/errors.js';
import { createTestApp, signedInClient, type TestApp, type TestClient } from '@/server/testing/test-app.js';
import { forgetProjectLookups, lookupProject, PROJECT_RECHECK_MS } from './project-lookups.js';
import { resolveProjectByRepoUrl } from './projects.js';
import type { ProjectRow } from './projects.repo.js';

/** The repo_url → project cache behind every agent call: a rename or a delete is never missed. */
let t: TestApp;
let user: { client: TestClient; userId: string };
beforeAll(async () => {
  t = await createTestApp();
  user = await signedInClient(t.app);
});
afterAll(() => t.close());

// The clock is the test's: each test starts far from the others, so no entry of theirs is fresh.
let epoch = 1_000_000_000_000;
const clockAt = () => {
  epoch += 1_000_000;
  const at = epoch;
  return { at, deps: (now = at) => ({ db: t.database.db, now: () => now }) };
};
const urlOf = (projectId: string) => `http://localhost/git/${projectId}.git`;
const newProject = async (name: string) => {
  const created = await user.client.post<{ id: string }>('/api/projects', { name });
  expect(created.status).toBe(201);
  return created.body.id;
};
const notFound = async (run: Promise<unknown>) => {
  const error = await run.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('REPO_NOT_FOUND');
};

describe('resolving repo_url, cached', () => {
  it('asks the database once per PROJECT_RECHECK_MS', async () => {
    const { at, deps } = clockAt();
    const id = await newProject('Counted');
    const stats = t.database.stats;
    const before = stats.statements;
    expect((await resolveProjectByRepoUrl(deps(), user.userId, urlOf(id))).id).toBe(id);
    expect(stats.statements - before).toBe(1);
    expect((await resolveProjectByRepoUrl(deps(at + 1), user.userId, urlOf(id))).id).toBe(id);
    expect(stats.statements - before).toBe(1);
    // Another spelling of the same clone URL is looked up once too.
    const spelled = `http://LOCALHOST/git/${id}`;
    expect((await resolveProjectByRepoUrl(deps(at + 1), user.userId, spelled)).id).toBe(id);
    expect((await resolveProjectByRepoUrl(deps(at + 2), user.userId, spelled)).id).toBe(id);
    expect(stats.statements - before).toBe(2);
    expect((await resolveProjectByRepoUrl(deps(at + PROJECT_RECHECK_MS), user.userId, urlOf(id))).id).toBe(
      id,
    );
    expect(stats.statements - before).toBe(3);
  });

  it('asks the database once for calls that come while a lookup is under way', async () => {
    const { deps } = clockAt();
    const id = await newProject('Busy');
    const stats = t.database.stats;
    const before = stats.statements;
    const rows = await Promise.all(
      Array.from({ length: 20 }, () => resolveProjectByRepoUrl(deps(), user.userId, urlOf(id))),
    );
    expect(rows.map((row) => row.id)).toEqual(rows.map(() => id));
    expect(stats.statements - before).toBe(1);
  });

  it('does not keep, nor share, a lookup a rename or delete overtook', async () => {
    const { at, deps } = clockAt();
    const id = await newProject('Raced');
    const row = await resolveProjectByRepoUrl(deps(), user.userId, urlOf(id));
    const db = t.database.db;
    const url = `raced-${id}`;
    let release: (found: ProjectRow) => void = () => {};
    const before = lookupProject(
      db,
      user.userId,
      url,
      at,
      () => new Promise((resolve) => (release = resolve)),
    );
    // The project changes while that lookup waits for the database.
    forgetProjectLookups(db, id);
    let asked = 0;
    const find = async () => {
      asked += 1;
      return row;
    };
    const after = lookupProject(db, user.userId, url, at, find);
    expect(asked).toBe(1); // its own lookup, not the one under way
    await after;
    release({ ...row, name: 'As it was' });
    await before;
    // What `after` read is kept, not what `before` read…
    expect((await lookupProject(db, user.userId, url, at, find))?.name).toBe('Raced');
    expect(asked).toBe(1);
    forgetProjectLookups(db, id);
    await lookupProject(db, user.userId, url, at, find);
    expect(asked).toBe(2); // …until the next change
  });

  it('forgets a project deleted here at once', async () => {
    const { deps } = clockAt();
    const id = await newProject('Doomed');
    expect((await resolveProjectByRepoUrl(deps(), user.userId, urlOf(id))).id).toBe(id);
    expect((await user.client.delete(`/api/projects/${id}`)).status).toBe(204);
    await notFound(resolveProjectByRepoUrl(deps(), user.userId, urlOf(id)));
  });

  it('answers a project renamed here with its new name at once', async () => {
    const { deps } = clockAt();
    const id = await newProject('Before');
    expect((await resolveProjectByRepoUrl(deps(), user.userId, urlOf(id))).name).toBe('Before');
    expect((await user.client.patch(`/api/projects/${id}`, { name: 'After' })).status).toBe(200);
    expect((await resolveProjectByRepoUrl(deps(), user.userId, urlOf(id))).name).toBe('After');
  });

  it('sees a project deleted elsewhere (another process) after PROJECT_RECHECK_MS', async () => {
    const { at, deps } = clockAt();
    const id = await newProject('Elsewhere');
    expect((await resolveProjectByRepoUrl(deps(), user.userId, urlOf(id))).id).toBe(id);
    await t.database.db.delete(projects).where(eq(projects.id, id));
    expect(
      (await resolveProjectByRepoUrl(deps(at + PROJECT_RECHECK_MS - 1), user.userId, urlOf(id))).id,
    ).toBe(id);
    await notFound(resolveProjectByRepoUrl(deps(at + PROJECT_RECHECK_MS), user.userId, urlOf(id)));
  });

  it('never answers another user’s project from the cache', async () => {
    const { deps } = clockAt();
    const id = await newProject('Mine');
    expect((await resolveProjectByRepoUrl(deps(), user.userId, urlOf(id))).id).toBe(id);
    const stranger = await signedInClient(t.app);
    await notFound(resolveProjectByRepoUrl(deps(), stranger.userId, urlOf(id)));
  });
});
