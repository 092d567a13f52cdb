import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReviewComment } from '@/contracts/review-comments.js';
import type { TestApp } from '@/server/testing/test-app.js';
import { signedInClient } from '@/server/testing/test-app.js';
import {
  createProxiedTestApp,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  post,
  type RunStatusBody,
  runToEnd,
  statusOf,
  type TaskSetup,
} from './testing/run-kit.js';

let app: ProxiedTestApp;
let t: TestApp;
let setup: TaskSetup;
let run: RunStatusBody;
let file: string;
beforeAll(async () => {
  app = await createProxiedTestApp();
  ({ t } = app);
  setup = await newTask(t, { title: 'Commented helper' });
  run = await runToEnd(t, setup.client, setup.taskId);
  file = run.fileChanges.files[0]!.filePath;
}, LONG_TEST_MS);
afterAll(() => app.close());

const url = () => `/api/pipeline/runs/${run.runId}/comments`;
const list = async () => (await setup.client.get<{ comments: ReviewComment[] }>(url())).body.comments;

describe('comments on a run’s lines', () => {
  it('are created (201 with id, path, line, body, createdAt), listed and deleted', async () => {
    const res = await post<ReviewComment>(setup.client, url(), {
      path: `./${file}`,
      line: 2,
      body: '  Use a const here.  ',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      path: file,
      line: 2,
      body: 'Use a const here.',
      createdAt: expect.any(String),
      addressedAt: null,
    });
    expect((await list()).map((c) => c.id)).toContain(res.body.id);

    const gone = await setup.client.request('DELETE', `${url()}/${res.body.id}`);
    expect(gone.status).toBe(204);
    expect((await list()).map((c) => c.id)).not.toContain(res.body.id);
    expect((await setup.client.request('DELETE', `${url()}/${res.body.id}`)).status).toBe(404);
  });

  it('refuses a body over 4,000 characters, an empty one, a bad line and unknown fields (400)', async () => {
    for (const body of [
      { path: file, line: 1, body: 'x'.repeat(4001) },
      { path: file, line: 1, body: '   ' },
      { path: file, line: 0, body: 'x' },
      { path: file, line: 1.5, body: 'x' },
      { path: file, line: 1, body: 'x', extra: true },
    ]) {
      const res = await post(setup.client, url(), body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    expect((await post(setup.client, url(), { path: file, line: 1, body: 'x'.repeat(4000) })).status).toBe(
      201,
    );
  });

  it('refuses a path outside the repository or not among the run’s changed files (400 INVALID_PATH)', async () => {
    for (const path of ['../etc/passwd', '/etc/passwd', '.git/config', 'not-changed.ts']) {
      const res = await post(setup.client, url(), { path, line: 1, body: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('INVALID_PATH');
    }
  });

  it('answers 404 for another user’s run, whatever the method', async () => {
    const [own] = await list();
    const other = await signedInClient(t.app);
    expect((await other.client.get(url())).status).toBe(404);
    expect((await post(other.client, url(), { path: file, line: 1, body: 'x' })).status).toBe(404);
    expect((await other.client.request('DELETE', `${url()}/${own!.id}`)).status).toBe(404);
    expect((await list()).map((c) => c.id)).toContain(own!.id);
  });
});

describe('request changes with open comments', () => {
  it(
    'sends them to the coder (feedback may be empty) and marks them addressed; then feedback is needed again',
    async () => {
      for (const c of await list()) await setup.client.request('DELETE', `${url()}/${c.id}`);
      await post(setup.client, url(), { path: file, line: 3, body: 'Name this greetPerson.' });
      const before = app.requestsOf(run.runId, 'coder').length;

      const res = await post(setup.client, `/api/pipeline/${setup.taskId}/request-changes`, { feedback: '' });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ comments: 1 });
      await t.deps.orchestrator.idle();
      expect(await statusOf(setup.client, setup.taskId)).toMatchObject({ status: 'passed' });

      const prompt = app.requestsOf(run.runId, 'coder').slice(before)[0]?.prompt ?? '';
      expect(prompt).toContain('## Comments on lines of the diff');
      expect(prompt).toContain(`${file}:3 — Name this greetPerson.`);
      const [comment] = await list();
      expect(comment?.addressedAt).toEqual(expect.any(String));

      const again = await post(setup.client, `/api/pipeline/${setup.taskId}/request-changes`, {});
      expect(again.status).toBe(400);
      expect(again.body.error).toBe('VALIDATION_ERROR');
    },
    LONG_TEST_MS,
  );
});
