import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Project } from '@/contracts/projects.js';
import type { TestApp, TestClient } from '@/server/testing/test-app.js';
import {
  createProxiedTestApp,
  LONG_TEST_MS,
  newTask,
  type ProxiedTestApp,
  post,
  type RunStatusBody,
  startOk,
  statusOf,
  taskEvents,
  taskStatusOf,
} from './testing/run-kit.js';

let app: ProxiedTestApp;
let t: TestApp;

beforeAll(async () => {
  app = await createProxiedTestApp();
  ({ t } = app);
});
afterAll(() => app.close());

/** Every request the provider (the simulator, through the recording proxy) got for the run. */
const requestsFor = (runId: string) => app.proxy.requests.filter((r) => r.runId === runId);

async function setBudget(client: TestClient, projectId: string, taskTokenBudget: number | null) {
  const res = await client.patch<Project>(`/api/projects/${projectId}`, { taskTokenBudget });
  expect(res.status).toBe(200);
  expect(res.body.taskTokenBudget).toBe(taskTokenBudget);
}

function retry(client: TestClient, taskId: string, body: Record<string, unknown> = {}) {
  return post<{ runId: string; retryCount: number; delayMs: number }>(
    client,
    `/api/pipeline/${taskId}/retry`,
    body,
  );
}

const spentBy = (run: Pick<RunStatusBody, 'usage'>) => run.usage.inputTokens + run.usage.outputTokens;

/** The worst case of the call a budget pause refused, as the run recorded it. */
function refusedCall(run: RunStatusBody) {
  const budget = run.errorDetails?.budget;
  if (!budget) throw new Error(`not a budget pause: ${JSON.stringify(run.errorDetails)}`);
  return budget.callInputTokens + budget.callMaxOutputTokens;
}

describe("a task's token budget", () => {
  it(
    'pauses the run before a call that could pass it (no request is made); Retry is refused until the budget is raised, then the run passes',
    async () => {
      const { client, projectId, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      await setBudget(client, projectId, 1000);
      const runId = await startOk(client, taskId);
      await t.deps.orchestrator.idle();

      const paused = await statusOf(client, taskId);
      expect(paused).toMatchObject({ runId, status: 'paused', phase: 'paused' });
      expect(paused.errorDetails).toMatchObject({
        type: 'budget_exceeded',
        failedAgent: 'planner',
        failedPhase: 'planning',
        retryable: true,
        retryCount: 0,
        budget: { spentTokens: 0, budgetTokens: 1000, callMaxOutputTokens: 4096 },
      });
      expect(paused.errorDetails?.message).toContain('spent 0 of its 1,000-token budget');
      expect(paused.errorDetails?.budget?.callInputTokens).toBeGreaterThan(100);
      expect(requestsFor(runId)).toHaveLength(0);
      expect(await taskStatusOf(client, taskId)).toBe('spec');
      const events = await taskEvents(t, taskId);
      expect(events.find((e) => e.type === 'error')?.data).toMatchObject({ type: 'budget_exceeded', runId });

      // Retry re-checks the budget: still too small, so the run stays paused and nothing is asked.
      const refused = await retry(client, taskId);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({
        error: 'BUDGET_EXCEEDED',
        spentTokens: 0,
        budgetTokens: 1000,
        neededTokens: refusedCall(paused),
      });
      expect(refused.body.message).toContain(`at least ${refusedCall(paused).toLocaleString('en-US')}`);
      await t.deps.orchestrator.idle();
      expect((await statusOf(client, taskId)).status).toBe('paused');
      expect(requestsFor(runId)).toHaveLength(0);

      await setBudget(client, projectId, 10_000_000);
      const resumed = await retry(client, taskId);
      expect(resumed.status).toBe(202);
      // A budget pause spends no retry and waits no backoff.
      expect(resumed.body).toMatchObject({ runId, retryCount: 0, delayMs: 0 });
      await t.deps.orchestrator.idle();

      const passed = await statusOf(client, taskId);
      expect(passed).toMatchObject({ runId, status: 'passed', errorDetails: null });
      expect(requestsFor(runId).length).toBe(passed.calls.length);
      expect(spentBy(passed)).toBeGreaterThan(0);
      expect(spentBy(passed)).toBeLessThanOrEqual(10_000_000);
      expect(await taskStatusOf(client, taskId)).toBe('review');
    },
    LONG_TEST_MS,
  );

  it(
    'makes a call whose worst case meets the budget exactly, checks the reminder after an answer that did not parse, and counts that answer',
    async () => {
      const scenario = 'malformed@planner';
      const { client, projectId, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      await setBudget(client, projectId, 1);
      const runId = await startOk(client, taskId, { scenario });
      await t.deps.orchestrator.idle();
      const first = await statusOf(client, taskId);
      const plannerCall = refusedCall(first);

      // Exactly the planner's worst case: that call is made; its answer does not parse, and the
      // reminder (spent + its own worst case) no longer fits.
      await setBudget(client, projectId, plannerCall);
      expect((await retry(client, taskId, { scenario })).status).toBe(202);
      await t.deps.orchestrator.idle();
      const second = await statusOf(client, taskId);
      expect(requestsFor(runId)).toHaveLength(1);
      expect(second.status).toBe('paused');
      expect(second.errorDetails).toMatchObject({ type: 'budget_exceeded', failedAgent: 'planner' });
      expect(second.calls).toHaveLength(0);
      // The answer that did not parse was spent all the same: the run counts it.
      const malformed = spentBy(second);
      expect(malformed).toBeGreaterThan(0);
      expect(second.errorDetails?.budget).toMatchObject({
        spentTokens: malformed,
        budgetTokens: plannerCall,
      });
      expect(second.errorDetails?.message).toContain(
        `spent ${malformed.toLocaleString('en-US')} of its ${plannerCall.toLocaleString('en-US')}-token budget`,
      );

      await setBudget(client, projectId, null);
      expect((await retry(client, taskId, { scenario })).status).toBe(202);
      await t.deps.orchestrator.idle();
      const passed = await statusOf(client, taskId);
      expect(passed.status).toBe('passed');
      const recorded = passed.calls.reduce((sum, call) => sum + call.inputTokens + call.outputTokens, 0);
      expect(spentBy(passed)).toBe(recorded + malformed);
    },
    LONG_TEST_MS,
  );

  it(
    "counts every run of the task: a new run starts with the earlier runs' spend",
    async () => {
      const { client, projectId, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const firstRun = await startOk(client, taskId, { scenario: 'error=429@coder' });
      await t.deps.orchestrator.idle();
      const first = await statusOf(client, taskId);
      expect(first.status).toBe('paused');
      const earlier = spentBy(first);
      expect(earlier).toBeGreaterThan(0);
      expect((await post(client, `/api/pipeline/${taskId}/cancel`)).status).toBe(200);
      await t.deps.orchestrator.idle();

      // Enough for the run's first call on its own, not with what the first run spent.
      await setBudget(client, projectId, earlier + 100);
      const secondRun = await startOk(client, taskId);
      await t.deps.orchestrator.idle();
      const second = await statusOf(client, taskId);
      expect(second).toMatchObject({ runId: secondRun, status: 'paused' });
      expect(second.earlierRunsUsage).toEqual(first.usage);
      expect(second.errorDetails?.budget).toMatchObject({
        spentTokens: earlier,
        budgetTokens: earlier + 100,
      });
      expect(requestsFor(secondRun)).toHaveLength(0);
      expect(requestsFor(firstRun).length).toBeGreaterThan(0);

      const history = await client.get<{ runs: { id: string; earlierRunsUsage: unknown }[] }>(
        `/api/pipeline/${taskId}/runs`,
      );
      expect(history.body.runs.map((run) => [run.id, run.earlierRunsUsage])).toEqual([
        [secondRun, first.usage],
        [firstRun, { inputTokens: 0, outputTokens: 0, costUsd: 0 }],
      ]);
    },
    LONG_TEST_MS,
  );
});
