import { describe, expect, it } from 'vitest';
import type { LockActivityData } from '@/contracts/coordination.js';
import { gitText } from '@/server/lib/git.js';
import { LOCK_STORES } from '@/server/testing/lock-stores.js';
import { projectStream } from '../events/bus.js';
import { sweepExpiredLocks } from './lock-sweeper.js';
import { branchHead, fx, newAgent, ttl, useCoordinationApp } from './testing/fixture.js';

/** Every rule of post_status, expiry and the activity feed (issue 9, "The rules"), over REST, on each lock store. */
describe.each(LOCK_STORES.filter(([, available]) => available))(
  'over the %s lock store',
  (_name, _available, makeStore) => {
    useCoordinationApp(makeStore);

    describe('post_status', () => {
      it('refuses a second writer with WAIT, sleep 5, the fx.owner and the conflicts, and takes nothing', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        expect((await alice.post(['x/b.ts'], 'WRITING', 'Alice rewrites b')).body).toMatchObject({
          success: true,
          orchestration: { action: 'PROCEED' },
        });
        const refused = await bob.post(['x/a.ts', 'x/b.ts', 'x/c.ts'], 'WRITING', 'Bob touches a, b and c');
        expect(refused.status).toBe(200);
        expect(refused.body).toMatchObject({
          success: false,
          orchestration: {
            type: 'orchestration_command',
            action: 'WAIT',
            command: 'sleep 5',
            metadata: { lock_owner: alice.id, conflicts: ['x/b.ts'] },
          },
        });
        expect(refused.body.orchestration.reason).toContain('Alice rewrites b');
        // Nothing of Bob's request is held: Alice may write a and c.
        expect((await alice.check(['x/a.ts', 'x/c.ts'])).body.locks).toEqual({});
        expect(
          (await alice.post(['x/a.ts', 'x/c.ts'], 'WRITING', 'Alice takes a and c too')).body.success,
        ).toBe(true);
      });

      it('refreshes the timestamp when the same lock is posted again', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        await alice.post(['r/a.ts'], 'WRITING', 'Alice edits a');
        const first = (await bob.check(['r/a.ts'])).body.locks['r/a.ts']?.timestamp ?? 0;
        fx.t.advance(120_000);
        const again = await alice.post(['r/a.ts'], 'WRITING', 'Alice edits a');
        expect(again.body.success).toBe(true);
        const second = (await bob.check(['r/a.ts'])).body.locks['r/a.ts'];
        expect(second?.timestamp).toBeGreaterThanOrEqual(first + 120);
        expect(second).toMatchObject({ user: alice.id, status: 'WRITING', message: 'Alice edits a' });
        // …and the lock now lives a full TTL from the repost.
        fx.t.advance(ttl() - 60_000);
        expect((await bob.check(['r/a.ts'])).body.status).toBe('CONFLICT');
      });

      it('needs one sentence of intent: empty, blank or over 500 characters is 400', async () => {
        const alice = await newAgent('Alice');
        for (const message of ['', '   \n ', 'x'.repeat(501)]) {
          const res = await alice.call<{ error: string; fields: Record<string, string[]> }>('post_status', {
            file_paths: ['m.ts'],
            status: 'WRITING',
            message,
          });
          expect(res.status).toBe(400);
          expect(Object.keys(res.body.fields)).toEqual(['message']);
        }
        const missing = await alice.call<{ fields: Record<string, string[]> }>('post_status', {
          file_paths: ['m.ts'],
          status: 'WRITING',
        });
        expect(missing.status).toBe(400);
        expect((await alice.post(['m.ts'], 'WRITING', `  ${'y'.repeat(500)}  `)).status).toBe(200);
      });

      it('refuses bad paths and statuses with 400', async () => {
        const alice = await newAgent('Alice');
        for (const body of [
          { file_paths: ['../etc/passwd'], status: 'WRITING', message: 'Escaping' },
          { file_paths: [], status: 'WRITING', message: 'Nothing' },
          { file_paths: ['a.ts'], status: 'EDITING', message: 'Bad status' },
          { file_paths: ['a.ts'], status: 'OPEN', message: 'No head' },
          { file_paths: ['a.ts'], status: 'WRITING', message: 'Bad branch', branch: '-x' },
        ]) {
          expect((await alice.call('post_status', body)).status, JSON.stringify(body)).toBe(400);
        }
      });

      it('OPEN with a commit the branch does not contain answers PUSH and keeps the locks; after the push it releases', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        await alice.post(['src/db.ts'], 'WRITING', 'Alice adds pooling to the database');
        // Alice's commit exists but is not on main (committed, not pushed).
        const base = await branchHead();
        const tree = (await gitText(['rev-parse', `${base}^{tree}`], { cwd: fx.repo })).trim();
        const commit = (
          await gitText(
            ['-c', 'user.name=A', '-c', 'user.email=a@x', 'commit-tree', tree, '-p', base, '-m', 'pool'],
            {
              cwd: fx.repo,
            },
          )
        ).trim();
        const early = await alice.post(['src/db.ts'], 'OPEN', 'Alice finished pooling', {
          new_repo_head: commit,
        });
        expect(early.body).toMatchObject({
          success: false,
          orchestration: { action: 'PUSH', command: 'git push', metadata: { remote_head: base } },
        });
        expect((await bob.check(['src/db.ts'])).body.status).toBe('CONFLICT');
        const unknown = await alice.post(['src/db.ts'], 'OPEN', 'Alice finished pooling', {
          new_repo_head: 'abcdef1234567',
        });
        expect(unknown.body.orchestration.action).toBe('PUSH');

        await gitText(['update-ref', 'refs/heads/main', commit, base], { cwd: fx.repo }); // the push
        const done = await alice.post(['src/db.ts'], 'OPEN', 'Alice finished pooling', {
          new_repo_head: commit,
        });
        expect(done.body).toEqual({
          success: true,
          repo_head: commit,
          orphaned_dependencies: ['src/auth.ts'],
          orchestration: {
            type: 'orchestration_command',
            action: 'PROCEED',
            command: null,
            reason: expect.any(String),
          },
        });
        expect((await bob.check(['src/db.ts'], { agent_head: commit })).body.status).toBe('OK');
      });

      it('releasing files you do not hold changes nothing', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        await alice.post(['n/a.ts'], 'WRITING', 'Alice edits a');
        const res = await bob.post(['n/a.ts'], 'OPEN', 'Bob releases what he never had', {
          new_repo_head: await branchHead(),
        });
        expect(res.body).toMatchObject({
          success: true,
          orphaned_dependencies: [],
          orchestration: { action: 'PROCEED' },
        });
        expect((await bob.check(['n/a.ts'])).body.locks['n/a.ts']).toMatchObject({
          user: alice.id,
          status: 'WRITING',
        });
      });
    });

    describe('expiry', () => {
      it('lets locks lapse at LOCK_TTL, sweeps them into the status log and the feed, and answers STOP to the one who lost', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        await alice.post(['e/a.ts', 'e/b.ts'], 'WRITING', 'Alice migrates the schema');
        fx.t.advance(ttl() - 1000);
        expect((await bob.check(['e/a.ts'])).body.status).toBe('CONFLICT');
        fx.t.advance(1000);
        expect((await bob.check(['e/a.ts'])).body).toMatchObject({ status: 'OK', locks: {} });

        const seqBefore = await fx.t.deps.events.lastSeq(projectStream(fx.projectId));
        const sweptAt = fx.t.deps.now();
        const swept = await sweepExpiredLocks({ ...fx.t.deps, locks: fx.t.deps.coordination.locks });
        expect(swept.map((e) => e.lock.path).sort()).toEqual(expect.arrayContaining(['e/a.ts', 'e/b.ts']));
        const events = await fx.t.deps.events.replay(projectStream(fx.projectId), seqBefore);
        const expired = events.filter((e) => e.type === 'lock-expired');
        expect(expired.map((e) => e.data)).toContainEqual({
          branch: 'main',
          agent: { id: alice.id, name: 'Alice' },
          files: expect.arrayContaining(['e/a.ts', 'e/b.ts']),
          message: 'Alice migrates the schema',
          timestamp: expect.any(Number),
        });
        for (const event of expired) expect(event.data.timestamp).toBeGreaterThanOrEqual(sweptAt);

        expect((await bob.post(['e/a.ts'], 'WRITING', 'Bob fixes the migration')).body.success).toBe(true);
        const back = await alice.post(['e/a.ts'], 'WRITING', 'Alice migrates the schema');
        expect(back.body).toMatchObject({
          success: false,
          orchestration: {
            action: 'STOP',
            command: null,
            metadata: { lock_owner: bob.id, conflicts: ['e/a.ts'] },
          },
        });
        // A file she lost that nobody took is simply hers again.
        expect((await alice.post(['e/b.ts'], 'WRITING', 'Alice migrates the schema')).body.success).toBe(
          true,
        );
      });

      it('answers STOP to an OPEN of a file lost and now written by another, before PUSH, and releases nothing', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        await alice.post(['s/a.ts'], 'WRITING', 'Alice splits the parser');
        fx.t.advance(ttl());
        await alice.post(['s/b.ts'], 'WRITING', 'Alice splits the parser');
        expect((await bob.post(['s/a.ts'], 'WRITING', 'Bob renames the parser')).body.success).toBe(true);
        const stopped = {
          success: false,
          orchestration: { action: 'STOP', metadata: { lock_owner: bob.id, conflicts: ['s/a.ts'] } },
        };
        // Pushed or not, STOP comes first; her lock on s/b.ts stays.
        const notPushed = await alice.post(['s/b.ts', 's/a.ts'], 'OPEN', 'Alice is done splitting', {
          new_repo_head: 'f'.repeat(40),
        });
        expect(notPushed.body).toMatchObject(stopped);
        const pushed = await alice.post(['s/b.ts', 's/a.ts'], 'OPEN', 'Alice is done splitting', {
          new_repo_head: await branchHead(),
        });
        expect(pushed.body).toMatchObject(stopped);
        expect((await bob.check(['s/b.ts'])).body.status).toBe('CONFLICT');
        // Without the file she lost, her release goes through.
        const released = await alice.post(['s/b.ts'], 'OPEN', 'Alice is done splitting', {
          new_repo_head: await branchHead(),
        });
        expect(released.body).toMatchObject({ success: true, orchestration: { action: 'PROCEED' } });
        expect((await bob.check(['s/b.ts'])).body.status).toBe('OK');
      });
    });

    describe('the activity feed', () => {
      it('writes every taken, refused and released lock, with its message, to the project stream', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        const stream = projectStream(fx.projectId);
        const before = await fx.t.deps.events.lastSeq(stream);
        await alice.post(['f/a.ts'], 'WRITING', 'Alice writes the feed');
        await bob.post(['f/a.ts'], 'WRITING', 'Bob wants the feed');
        await alice.post(['f/a.ts'], 'OPEN', 'Alice is done with the feed', {
          new_repo_head: await branchHead(),
        });
        const events = (await fx.t.deps.events.replay(stream, before)).filter((e) =>
          e.type.startsWith('lock-'),
        );
        expect(
          events.map((e) => [
            e.type,
            (e.data as LockActivityData).agent.name,
            (e.data as LockActivityData).message,
          ]),
        ).toEqual([
          ['lock-taken', 'Alice', 'Alice writes the feed'],
          ['lock-refused', 'Bob', 'Bob wants the feed'],
          ['lock-released', 'Alice', 'Alice is done with the feed'],
        ]);
      });
    });
  },
);
