import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnginesResponse } from '@/contracts/engines.js';
import { newTask, startRun } from '@/server/modules/pipeline/testing/run-kit.js';
import { createTestApp, signedInClient, type TestApp, TestClient } from '@/server/testing/test-app.js';
import { createEngineCatalog } from './engine-catalog.js';

describe('GET /api/engines and the engine a run asks for', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists every engine for a signed-in person, built-in ones first, and nothing without a session', async () => {
    const anonymous = await new TestClient(t.app).get('/api/engines');
    expect(anonymous.status).toBe(401);

    const { client } = await signedInClient(t.app);
    const res = await client.get<EnginesResponse>('/api/engines');
    expect(res.status).toBe(200);
    expect(res.body.engines.map((e) => e.id)).toEqual(['autocoder', 'one-shot', 'claude-code', 'codex']);
    expect(res.body.engines.slice(0, 2).every((e) => e.available && e.builtIn)).toBe(true);
    const claude = res.body.engines.find((e) => e.id === 'claude-code');
    expect(claude).toMatchObject({ builtIn: false, endpoint: 'anthropic' });
    // Installed or not, the answer says which; an engine that is not says why and how to install it.
    for (const engine of res.body.engines.filter((e) => !e.available)) {
      expect(engine.reason).toBeTruthy();
    }
  });

  it('says why an engine is missing and how to install it, and that a server without a sandbox runs none', async () => {
    const missing = createEngineCatalog({
      sandboxRefusal: () => null,
      find: () => ({ missing: 'Codex is not installed (@openai/codex).' }),
    });
    const codex = (await missing.list()).find((e) => e.id === 'codex');
    expect(codex).toMatchObject({ available: false, reason: 'Codex is not installed (@openai/codex).' });
    expect(codex?.install).toContain('npm install');
    await expect(missing.binary('codex')).rejects.toThrow(/not installed.*npm install/s);

    const off = createEngineCatalog({ sandboxRefusal: () => 'Running repository code is disabled' });
    expect(await off.unavailable('claude-code')).toContain('Running repository code is disabled');
    expect(await off.unavailable('autocoder')).toBeNull();
  });

  it('refuses at once a run whose engine does not speak the provider’s API, and leaves the task where it was', async () => {
    const setup = await newTask(t, { coderEngine: 'codex' });
    const res = await startRun(
      setup.client,
      setup.taskId,
      { provider: 'anthropic' },
      { 'x-anthropic-key': `sk-ant-${'a'.repeat(40)}` },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('ENGINE_UNAVAILABLE');
    expect(res.body.message).toContain('OpenAI-compatible');
    const task = await setup.client.get<{ status: string }>(`/api/tasks/${setup.taskId}`);
    expect(task.body.status).toBe('backlog');
  });
});
