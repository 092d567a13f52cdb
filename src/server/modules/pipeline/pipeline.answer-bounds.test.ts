import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TestClient } from '@/server/testing/test-app.js';
import { type SimulatorHandle, type StreamOutcome, startSimulator } from '../llm/simulator/server.js';
import { LONG_TEST_MS, newTask, startOk, statusOf } from './testing/run-kit.js';

let simulator: SimulatorHandle;
let t: TestApp;

beforeAll(async () => {
  simulator = await startSimulator({ chunkDelayMs: 0 });
  t = await createTestApp({ runtime: { simulatorUrl: simulator.url } });
});
afterAll(async () => {
  await t.close();
  await simulator.close();
});

describe('an agent answer past AUTOCODER_MAX_ANSWER_BYTES', () => {
  it(
    'a 2 MB answer of backticks is cut at 1 MiB, the run pauses with answer_too_large, and /api/health keeps answering',
    async () => {
      const { client, taskId } = await newTask(t, { coderEngine: 'one-shot' });
      const coderStreamEnd = new Promise<StreamOutcome>((resolve) =>
        simulator.events.on('stream-end', (e) => {
          if (e.agent === 'coder') resolve(e.outcome);
        }),
      );
      const health = new TestClient(t.app);
      await startOk(client, taskId, { scenario: 'huge=2000000@coder' });

      const latencies: number[] = [];
      let run = await statusOf(client, taskId);
      while (run.status === 'running') {
        const started = performance.now();
        const res = await health.get('/api/health');
        latencies.push(performance.now() - started);
        expect(res.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 5));
        run = await statusOf(client, taskId);
      }
      await t.deps.orchestrator.idle();
      const max = Math.max(...latencies);
      console.info(`health during a 2 MB answer: ${latencies.length} answers, max ${max.toFixed(1)} ms`);
      expect(latencies.length).toBeGreaterThan(3);
      expect(max).toBeLessThan(100);

      expect(run).toMatchObject({ status: 'paused', phase: 'paused' });
      expect(run.errorDetails).toMatchObject({
        type: 'answer_too_large',
        retryable: true,
        failedAgent: 'coder',
      });
      expect(run.errorDetails?.message).toMatch(/1048576 bytes/);
      // The simulator saw its stream closed by the client, well before its 2 MB were sent.
      expect(await coderStreamEnd).toBe('client-closed');
    },
    LONG_TEST_MS,
  );
});
