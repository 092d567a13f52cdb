import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineRunDetail, StoredEvent } from '../../../contracts/pipeline.js';
import type { Task } from '../../../contracts/tasks.js';
import { createTestApp, signedInClient, type TestApp } from '../../testing/test-app.js';
import { taskStream } from '../events/bus.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => t.close());

async function newTask(title = 'Add greeting helper', description = 'A function that greets by name.') {
  const user = await signedInClient(t.app);
  const task = await user.client.post<Task>('/api/tasks', { projectId: user.projectId, title, description });
  return { ...user, taskId: task.body.id };
}

async function events(taskId: string): Promise<StoredEvent[]> {
  return t.deps.events.replay(taskStream(taskId), 0);
}

describe('pipeline happy path', () => {
  it('plans, codes and reviews a task on its own branch and moves it to Review', async () => {
    const { client, taskId, projectId } = await newTask();
    const res = await client.post<{ runId: string }>(`/api/tasks/${taskId}/start-pipeline`, {
      provider: 'simulator',
    });
    expect(res.status).toBe(202);
    await t.deps.orchestrator.idle();
    const status = await client.get<PipelineRunDetail & { runId: string }>(`/api/pipeline/${taskId}/status`);
    expect(status.body).toMatchObject({
      runId: res.body.runId,
      status: 'passed',
      phase: 'completed',
      simulated: true,
    });
    expect(status.body.branch).toMatch(/^autocoder\/add-greeting-helper-[0-9a-f]{8}$/);
    expect((await client.get<Task>(`/api/tasks/${taskId}`)).body.status).toBe('review');
    const evs = await events(taskId);
    const types = evs.map((e) => e.type);
    expect(types).toContain('agent-log');
    expect(types.at(-1)).toBe('pipeline-complete');
    const ids = evs.map((e) => e.id);
    expect(ids).toEqual(ids.map((_, i) => i + 1));
    const project = await client.get<{ id: string }>(`/api/projects/${projectId}`);
    expect(project.status).toBe(200);
    const repo = (await t.database.db.query.projects.findFirst())?.repoPath;
    expect(repo).toBeTruthy();
  });
});
