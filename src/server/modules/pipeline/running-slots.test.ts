import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@/contracts/tasks.js';
import type { AppError } from '@/server/lib/errors.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';
import { FIRST_CURSOR } from './run-context.js';
import { RunningSlots } from './running-slots.js';
import { insertRun } from './runs.repo.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

/**
 * Two processes over one database are two RunningSlots over one database: each has its own
 * in-process queue, and only the database's lock stands between their starts.
 */
describe('running slots', () => {
  it('lets no more than the maximum start at once, across processes', async () => {
    const { client, projectId } = await signedInClient(t.app, 'slots@example.com');
    const userId = (await client.get<{ user: { id: string } }>('/api/auth/me')).body.user.id;
    const tasks: Task[] = [];
    for (let i = 0; i < 8; i++) {
      tasks.push(
        (await client.post<Task>('/api/tasks', { projectId, title: `Task ${i}`, description: 'x' })).body,
      );
    }
    const processes = [new RunningSlots(t.deps.db, 3), new RunningSlots(t.deps.db, 3)];
    const starts = await Promise.allSettled(
      tasks.map((task, i) =>
        processes[i % 2]?.for(userId)((db) =>
          insertRun(db, {
            taskId: task.id,
            provider: 'simulator',
            agentConfigs: null,
            cursor: FIRST_CURSOR,
            status: 'running',
            phase: 'planning',
          }),
        ),
      ),
    );
    const started = starts.filter((start) => start.status === 'fulfilled');
    const refused = starts.flatMap((start) => (start.status === 'rejected' ? [start.reason] : []));
    expect(started).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const reason of refused)
      expect(reason).toMatchObject({ code: 'TOO_MANY_PIPELINES' } satisfies Partial<AppError>);

    // A paused run being resumed does not count against itself.
    const [own] = started;
    const ownId = own?.status === 'fulfilled' ? (own.value?.id ?? '') : '';
    await expect(processes[1]?.for(userId, ownId)(async () => 'resumed')).resolves.toBe('resumed');
    await expect(processes[1]?.for(userId)(async () => 'fourth')).rejects.toMatchObject({
      code: 'TOO_MANY_PIPELINES',
    });
  });
});
