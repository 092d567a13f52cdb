import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';
import { LONG_TEST_MS, newTask, runRow, runToEnd } from '../pipeline/testing/run-kit.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('deleting a project', () => {
  it(
    'removes the worktrees of its runs (a run waiting in Review keeps one until then)',
    async () => {
      const user = await signedInClient(t.app);
      const created = await user.client.post<{ id: string }>('/api/projects', { name: 'Doomed' });
      expect(created.status).toBe(201);
      const projectId = created.body.id;
      const { taskId } = await newTask(t, { user: { ...user, projectId } });
      const run = await runToEnd(t, user.client, taskId);
      expect(run.status).toBe('passed');
      const worktree = (await runRow(t, run.runId)).worktreePath!;
      expect(existsSync(worktree)).toBe(true);

      expect((await user.client.delete(`/api/projects/${projectId}`)).status).toBe(204);
      expect(existsSync(worktree)).toBe(false);
    },
    LONG_TEST_MS,
  );
});
