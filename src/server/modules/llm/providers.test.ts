import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmError, type LlmRequest } from './provider.js';
import { createProvider } from './providers.js';
import { GREETING, plannerPrompt, systemFor } from './simulator/prompt-fixtures.js';
import { type SimulatorEvents, type SimulatorHandle, startSimulator } from './simulator/server.js';

let sim: SimulatorHandle;
const seen: SimulatorEvents['request'][0][] = [];
beforeAll(async () => {
  sim = await startSimulator({ port: 0, chunkDelayMs: 0 });
  sim.events.on('request', (info) => seen.push(info));
});
afterAll(() => sim.close());

const request = (overrides: Partial<LlmRequest> = {}): LlmRequest => ({
  agent: 'planner',
  model: 'claude-sonnet-4-20250514',
  maxTokens: 4096,
  system: systemFor('planner'),
  prompt: plannerPrompt(GREETING),
  onText: () => {},
  ...overrides,
});

describe('createProvider', () => {
  it('builds the simulator as a simulated Anthropic client that sends the run id and the scenario', async () => {
    const provider = createProvider({
      provider: 'simulator',
      simulatorUrl: sim.url,
      runId: 'run-42',
      scenario: 'error=529@planner×1',
    });
    expect(provider).toMatchObject({ id: 'simulator', simulated: true });
    await expect(provider.stream(request())).rejects.toMatchObject({ kind: 'overloaded' });
    await expect(provider.stream(request())).resolves.toHaveProperty('stopReason', 'end_turn');
    expect(seen.filter((s) => s.runKey === 'run-42').map((s) => s.fault)).toEqual([
      'error=529@plannerx1',
      undefined,
    ]);
  });

  it('sends the run id of the request when the provider was built without one', async () => {
    const provider = createProvider({ provider: 'simulator', simulatorUrl: sim.url });
    await provider.stream(request({ runId: 'per-request-run' }));
    expect(seen.some((s) => s.runKey === 'per-request-run')).toBe(true);
  });

  it("uses the request's Anthropic key, else the operator's, and talks to the configured base URL", async () => {
    const own = createProvider({
      provider: 'anthropic',
      anthropicKey: 'sk-ant-user-0123456789',
      anthropicBaseUrl: sim.url,
    });
    expect(own).toMatchObject({ id: 'anthropic', simulated: false });
    await expect(own.stream(request())).resolves.toHaveProperty('stopReason', 'end_turn');
    const operator = createProvider({
      provider: 'anthropic',
      operatorAnthropicKey: 'sk-ant-operator-0123456789',
      anthropicBaseUrl: sim.url,
    });
    await expect(operator.stream(request())).resolves.toHaveProperty('stopReason', 'end_turn');
  });

  it('refuses Anthropic without any key (auth) and OpenAI without a base URL (bad_request)', () => {
    expect(() => createProvider({ provider: 'anthropic' })).toThrow(LlmError);
    expect(() => createProvider({ provider: 'anthropic' })).toThrow(
      expect.objectContaining({ kind: 'auth' }),
    );
    expect(() => createProvider({ provider: 'openai' })).toThrow(
      expect.objectContaining({ kind: 'bad_request' }),
    );
    expect(() => createProvider({ provider: 'simulator' })).toThrow(
      expect.objectContaining({ kind: 'bad_request' }),
    );
  });

  it('builds the OpenAI-compatible provider for a base URL', async () => {
    const provider = createProvider({ provider: 'openai', openaiBaseUrl: `${sim.url}/v1` });
    expect(provider).toMatchObject({ id: 'openai', simulated: false });
    await expect(provider.stream(request())).resolves.toHaveProperty('stopReason', 'stop');
  });
});
