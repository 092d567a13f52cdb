import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckStatusResponse, LockActivityData, PostStatusResponse } from '@/contracts/coordination.js';
import { agentTokens, projects } from '@/server/db/schema.js';
import { gitText } from '@/server/lib/git.js';
import { createTestApp, signedInClient, type TestApp, TestClient } from '@/server/testing/test-app.js';
import { projectStream } from '../events/bus.js';
import { repositoryPath } from '../workspace/repository.js';
import { commitFiles } from '../workspace/test-repo.js';
import { sweepExpiredLocks } from './lock-sweeper.js';
import { LOCK_STORES } from './testing/stores.js';
import { tinyGraph } from './testing/tiny-graph.js';

/*
 * Every rule of issue 9 ("The rules") over REST: two agents with their own tokens, one user's
 * project, its real repository, the app's movable clock.
 */

let t: TestApp;
let owner: TestClient;
let projectId: string;
let repo: string;
let cloneUrl: string;
let head0: string;

/** An agent: a bearer token of the owner's, posting JSON as an SDK would (no cookie, no Origin). */
class AgentClient {
  constructor(
    readonly id: string,
    readonly name: string,
    private readonly token: string,
  ) {}
  async call<T>(route: 'check_status' | 'post_status', body: Record<string, unknown>) {
    const res = await t.app.request(`http://localhost/api/${route}`, {
      method: 'POST',
      headers: {
        host: 'localhost',
        authorization: `Bearer ${this.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ repo_url: cloneUrl, branch: 'main', ...body }),
    });
    return { status: res.status, body: (await res.json()) as T };
  }
  check(files: string[], extra: Record<string, unknown> = {}) {
    return this.call<CheckStatusResponse>('check_status', { file_paths: files, ...extra });
  }
  post(files: string[], status: string, message: string, extra: Record<string, unknown> = {}) {
    return this.call<PostStatusResponse>('post_status', { file_paths: files, status, message, ...extra });
  }
}

async function newAgent(name: string) {
  const res = await owner.post<{ id: string; name: string; token: string }>('/api/tokens', { name });
  expect(res.status).toBe(201);
  return new AgentClient(res.body.id, res.body.name, res.body.token);
}

const ttl = () => t.deps.coordination.lockTtlMs;
const branchHead = async () => (await gitText(['rev-parse', 'refs/heads/main'], { cwd: repo })).trim();

/** The REST suite runs over each lock store this machine has (Redis where REDIS_URL is set or one answers). */
describe.each(LOCK_STORES.filter(([, available]) => available))(
  'over the %s lock store',
  (_name, _available, makeStore) => {
    beforeAll(async () => {
      t = await createTestApp({
        runtime: {
          neighbours: tinyGraph((id) => repositoryPath(t.deps.dataDir, id)),
          lockStore: makeStore(),
        },
      });
      const signedIn = await signedInClient(t.app);
      owner = signedIn.client;
      projectId = signedIn.projectId;
      repo = repositoryPath(t.deps.dataDir, projectId);
      cloneUrl = `http://localhost/git/${projectId}.git`;
      // src/app.ts imports src/auth.ts, which imports src/db.ts.
      head0 = await commitFiles(
        repo,
        {
          'src/db.ts': 'export const db = {};\n',
          'src/auth.ts': "import { db } from './db';\nexport const auth = db;\n",
          'src/app.ts': "import { auth } from './auth.js';\nexport default auth;\n",
          'src/other.ts': 'export const other = 1;\n',
        },
        'Add sources',
      );
    });

    afterAll(async () => {
      await t.close();
    });

    describe('agent tokens', () => {
      it('shows a token once, keeps only its SHA-256, lists without secrets and revokes', async () => {
        const created = await owner.post<{ id: string; name: string; token: string }>('/api/tokens', {
          name: '  Claude on laptop ',
        });
        expect(created.status).toBe(201);
        expect(created.body).toEqual({
          id: expect.any(String),
          name: 'Claude on laptop',
          token: expect.any(String),
        });
        const { token, id } = created.body;

        const rows = await t.database.db.select().from(agentTokens).where(eq(agentTokens.id, id));
        expect(rows[0]?.tokenHash).toBe(createHash('sha256').update(token).digest('hex'));
        expect(JSON.stringify(rows)).not.toContain(token);

        const list = await owner.get<{ tokens: Record<string, unknown>[] }>('/api/tokens');
        const listed = list.body.tokens.find((entry) => entry.id === id);
        expect(listed).toEqual({ id, name: 'Claude on laptop', createdAt: expect.any(String) });
        expect(JSON.stringify(list.body)).not.toContain(token);

        const agent = new AgentClient(id, 'Claude on laptop', token);
        expect((await agent.check(['src/db.ts'])).status).toBe(200);
        expect((await owner.delete(`/api/tokens/${id}`)).status).toBe(204);
        const after = await agent.check(['src/db.ts']);
        expect(after.status).toBe(401);
        expect((await owner.delete(`/api/tokens/${id}`)).status).toBe(404);
      });

      it('refuses an empty name, and another user’s token id', async () => {
        expect((await owner.post('/api/tokens', { name: '   ' })).status).toBe(400);
        const mine = await owner.post<{ id: string }>('/api/tokens', { name: 'mine' });
        const stranger = (await signedInClient(t.app)).client;
        expect((await stranger.delete(`/api/tokens/${mine.body.id}`)).status).toBe(404);
        expect((await stranger.get<{ tokens: unknown[] }>('/api/tokens')).body.tokens).toEqual([]);
      });

      it('manages tokens only from a session: a bearer token or nobody gets 401', async () => {
        const agent = await owner.post<{ token: string }>('/api/tokens', { name: 'bot' });
        const res = await t.app.request('http://localhost/api/tokens', {
          headers: { host: 'localhost', authorization: `Bearer ${agent.body.token}` },
        });
        expect(res.status).toBe(401);
        expect((await new TestClient(t.app).get('/api/tokens')).status).toBe(401);
      });
    });

    describe('who may call check_status / post_status', () => {
      it('answers 401 without a token or session, and for an unknown token', async () => {
        const anonymous = await new TestClient(t.app).post('/api/check_status', {
          repo_url: cloneUrl,
          branch: 'main',
          file_paths: [],
        });
        expect(anonymous.status).toBe(401);
        const forged = new AgentClient('x', 'x', 'acat_not-a-real-token');
        expect((await forged.check([])).status).toBe(401);
      });

      it('lets a signed-in session act as its user', async () => {
        const res = await owner.post<PostStatusResponse>('/api/post_status', {
          repo_url: cloneUrl,
          branch: 'main',
          file_paths: ['session.md'],
          status: 'WRITING',
          message: 'The owner edits the notes by hand',
        });
        expect(res.status).toBe(200);
        expect(res.body.success).toBe(true);
        const other = await newAgent('observer');
        const seen = await other.check(['session.md']);
        expect(seen.body.locks['session.md']).toMatchObject({
          user_name: expect.stringContaining('@example.com'),
        });
      });
    });

    describe('repo_url', () => {
      it('names the project by its clone URL, however spelt, and by its recorded upstream', async () => {
        const agent = await newAgent('url-tester');
        await t.database.db
          .update(projects)
          .set({ repoUrl: 'https://github.com/Dedalus/Core.git' })
          .where(eq(projects.id, projectId));
        for (const url of [
          `http://LOCALHOST/git/${projectId}.git`,
          `http://localhost/git/${projectId}`,
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
        const stranger = await signedInClient(t.app);
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
        const parent = (await gitText(['rev-parse', `${head0}~1`], { cwd: repo })).trim();
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
        expect(
          (await bob.post(['src/other.ts'], 'WRITING', 'Bob renames the other constant')).body.success,
        ).toBe(true);
        const res = await alice.check(['src/other.ts'], { agent_head: 'ffffffff' });
        expect(res.body.status).toBe('CONFLICT');
        expect(res.body.locks['src/other.ts']).toEqual({
          user: bob.id,
          user_name: 'Bob',
          status: 'WRITING',
          lock_type: 'DIRECT',
          message: 'Bob renames the other constant',
          timestamp: Math.floor(t.deps.now() / 1000),
        });
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

    describe('post_status', () => {
      it('refuses a second writer with WAIT, sleep 5, the owner and the conflicts, and takes nothing', async () => {
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
        t.advance(120_000);
        const again = await alice.post(['r/a.ts'], 'WRITING', 'Alice edits a');
        expect(again.body.success).toBe(true);
        const second = (await bob.check(['r/a.ts'])).body.locks['r/a.ts'];
        expect(second?.timestamp).toBeGreaterThanOrEqual(first + 120);
        expect(second).toMatchObject({ user: alice.id, status: 'WRITING', message: 'Alice edits a' });
        // …and the lock now lives a full TTL from the repost.
        t.advance(ttl() - 60_000);
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
        const tree = (await gitText(['rev-parse', `${base}^{tree}`], { cwd: repo })).trim();
        const commit = (
          await gitText(
            ['-c', 'user.name=A', '-c', 'user.email=a@x', 'commit-tree', tree, '-p', base, '-m', 'pool'],
            {
              cwd: repo,
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

        await gitText(['update-ref', 'refs/heads/main', commit, base], { cwd: repo }); // the push
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
        t.advance(ttl() - 1000);
        expect((await bob.check(['e/a.ts'])).body.status).toBe('CONFLICT');
        t.advance(1000);
        expect((await bob.check(['e/a.ts'])).body).toMatchObject({ status: 'OK', locks: {} });

        const seqBefore = await t.deps.events.lastSeq(projectStream(projectId));
        const sweptAt = t.deps.now();
        const swept = await sweepExpiredLocks({ ...t.deps, locks: t.deps.coordination.locks });
        expect(swept.map((e) => e.lock.path).sort()).toEqual(expect.arrayContaining(['e/a.ts', 'e/b.ts']));
        const events = await t.deps.events.replay(projectStream(projectId), seqBefore);
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
    });

    describe('the activity feed', () => {
      it('writes every taken, refused and released lock, with its message, to the project stream', async () => {
        const alice = await newAgent('Alice');
        const bob = await newAgent('Bob');
        const stream = projectStream(projectId);
        const before = await t.deps.events.lastSeq(stream);
        await alice.post(['f/a.ts'], 'WRITING', 'Alice writes the feed');
        await bob.post(['f/a.ts'], 'WRITING', 'Bob wants the feed');
        await alice.post(['f/a.ts'], 'OPEN', 'Alice is done with the feed', {
          new_repo_head: await branchHead(),
        });
        const events = (await t.deps.events.replay(stream, before)).filter((e) => e.type.startsWith('lock-'));
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
