import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { projects } from '@/server/db/schema.js';
import { gitText } from '@/server/lib/git.js';
import { LOCK_STORES } from '@/server/testing/lock-stores.js';
import { signedInClient } from '@/server/testing/test-app.js';
import { branchHead, fx, newAgent, useCoordinationApp } from './testing/fixture.js';

/** repo_url and every rule of check_status (issue 9, "The rules"), over REST, on each lock store. */
describe.each(LOCK_STORES.filter(([, available]) => available))(
  'over the %s lock store',
  (_name, _available, makeStore) => {
    useCoordinationApp(makeStore);

    describe('repo_url', () => {
      it('names the project by its clone URL, however spelt, and by its recorded upstream', async () => {
        const agent = await newAgent('url-tester');
        await fx.t.database.db
          .update(projects)
          .set({ repoUrl: 'https://github.com/Dedalus/Core.git' })
          .where(eq(projects.id, fx.projectId));
        for (const url of [
          `http://LOCALHOST/git/${fx.projectId}.git`,
          `http://localhost/git/${fx.projectId}`,
          'git@github.com:Dedalus/Core.git',
          'https://GitHub.com/Dedalus/Core/',
          'ssh://git@github.com/Dedalus/Core',
        ]) {
          const res = await agent.check(['src/db.ts'], { repo_url: url });
          expect(res.status, url).toBe(200);
          expect(res.body.repo_head, url).toBe(await branchHead());
        }
      });

      it('answers 404 REPO_NOT_FOUND for an unknown repository and for another user’s', async () => {
        const agent = await newAgent('lost');
        const stranger = await signedInClient(fx.t.app);
        for (const url of [
          'https://github.com/nobody/nothing.git',
          `http://localhost/git/${stranger.projectId}.git`,
          `http://localhost/git/00000000-0000-4000-8000-000000000000.git`,
          'not a url',
        ]) {
          const res = await agent.call<{ error: string }>('check_status', { repo_url: url, file_paths: [] });
          expect(res.status, url).toBe(404);
          expect(res.body.error, url).toBe('REPO_NOT_FOUND');
        }
      });
    });

    describe('check_status', () => {
      it('answers OK and PROCEED with the branch head when nobody writes', async () => {
        const alice = await newAgent('Alice');
        const head = await branchHead();
        const res = await alice.check(['src/other.ts'], { agent_head: head });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          status: 'OK',
          repo_head: head,
          locks: {},
          warnings: [],
          orchestration: {
            type: 'orchestration_command',
            action: 'PROCEED',
            command: null,
            reason: expect.any(String),
          },
        });
      });

      it('answers STALE with PULL when the agent’s head is not the branch head', async () => {
        const alice = await newAgent('Alice');
        const parent = (await gitText(['rev-parse', `${fx.head0}~1`], { cwd: fx.repo })).trim();
        const res = await alice.check(['src/other.ts'], { agent_head: parent });
        expect(res.body.status).toBe('STALE');
        expect(res.body.orchestration).toMatchObject({
          action: 'PULL',
          command: 'git pull --rebase',
          metadata: { remote_head: await branchHead() },
        });
        // An abbreviation of the head is the head.
        expect(
          (await alice.check(['src/other.ts'], { agent_head: (await branchHead()).slice(0, 10) })).body
            .status,
        ).toBe('OK');
      });

      it('answers CONFLICT with SWITCH_TASK naming the file, the holder and its message, before STALE', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        const postedAt = Math.floor(fx.t.deps.now() / 1000);
        expect(
          (await bob.post(['src/other.ts'], 'WRITING', 'Bob renames the other constant')).body.success,
        ).toBe(true);
        const postedBy = Math.floor(fx.t.deps.now() / 1000);
        const res = await alice.check(['src/other.ts'], { agent_head: 'ffffffff' });
        expect(res.body.status).toBe('CONFLICT');
        expect(res.body.locks['src/other.ts']).toEqual({
          user: bob.id,
          user_name: 'Bob',
          status: 'WRITING',
          lock_type: 'DIRECT',
          message: 'Bob renames the other constant',
          timestamp: expect.any(Number),
        });
        // Seconds since the epoch, as in the seed.
        const { timestamp } = res.body.locks['src/other.ts'] ?? { timestamp: 0 };
        expect(timestamp).toBeGreaterThanOrEqual(postedAt);
        expect(timestamp).toBeLessThanOrEqual(postedBy);
        expect(res.body.orchestration.action).toBe('SWITCH_TASK');
        expect(res.body.orchestration.command).toBeNull();
        expect(res.body.orchestration.reason).toContain("'src/other.ts'");
        expect(res.body.orchestration.reason).toContain('Bob');
        expect(res.body.orchestration.reason).toContain('Bob renames the other constant');
        // The holder itself sees no conflict with its own lock.
        expect((await bob.check(['src/other.ts'])).body).toMatchObject({ status: 'OK', locks: {} });
        await bob.post(['src/other.ts'], 'OPEN', 'Bob is done', { new_repo_head: await branchHead() });
      });

      it('shows READING locks without blocking anyone', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        await bob.post(['src/db.ts'], 'READING', 'Bob studies the database module');
        const res = await alice.check(['src/db.ts']);
        expect(res.body.status).toBe('OK');
        expect(res.body.locks['src/db.ts']).toMatchObject({
          user: bob.id,
          status: 'READING',
          lock_type: 'DIRECT',
        });
        expect(
          (await alice.post(['src/db.ts'], 'WRITING', 'Alice adds pooling to the database')).body.success,
        ).toBe(true);
        await alice.post(['src/db.ts'], 'OPEN', 'Alice is done', { new_repo_head: await branchHead() });
        await bob.post(['src/db.ts'], 'OPEN', 'Bob is done', { new_repo_head: await branchHead() });
      });

      it('reports WRITING locks on import neighbours as NEIGHBOR conflicts, both directions', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        await bob.post(['src/auth.ts'], 'WRITING', 'Bob moves auth to JWT');
        for (const file of ['src/db.ts', 'src/app.ts']) {
          const res = await alice.check([file]);
          expect(res.body.status, file).toBe('CONFLICT');
          expect(res.body.locks, file).toEqual({
            'src/auth.ts': expect.objectContaining({
              user: bob.id,
              lock_type: 'NEIGHBOR',
              status: 'WRITING',
            }),
          });
          expect(res.body.orchestration.reason).toContain('NEIGHBOR');
        }
        expect((await alice.check(['src/other.ts'])).body.status).toBe('OK');
        await bob.post(['src/auth.ts'], 'OPEN', 'Bob is done', { new_repo_head: await branchHead() });
      });
    });
  },
);
