import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_SETTINGS, effectiveProvider, runRequestOf } from './run-settings';

const KEY = 'sk-ant-abcdefgh12345678';

describe('run settings', () => {
  it('uses the simulator until a key is stored, then Anthropic, unless a provider was chosen', () => {
    expect(effectiveProvider(DEFAULT_RUN_SETTINGS)).toBe('simulator');
    expect(effectiveProvider({ ...DEFAULT_RUN_SETTINGS, anthropicKey: KEY })).toBe('anthropic');
    expect(effectiveProvider({ ...DEFAULT_RUN_SETTINGS, anthropicKey: KEY, provider: 'simulator' })).toBe(
      'simulator',
    );
  });

  it('a simulated run sends its scenario and no key', () => {
    const request = runRequestOf({
      ...DEFAULT_RUN_SETTINGS,
      anthropicKey: KEY,
      provider: 'simulator',
      scenario: ' error=429@coder ',
    });
    expect(request).toEqual({ options: { provider: 'simulator', scenario: 'error=429@coder' }, headers: {} });
  });

  it('an Anthropic run sends the key as a header, never in the body', () => {
    const request = runRequestOf({ ...DEFAULT_RUN_SETTINGS, anthropicKey: KEY });
    expect(request.headers).toEqual({ 'x-anthropic-key': KEY });
    expect(JSON.stringify(request.options)).not.toContain(KEY);
    expect(request.options.provider).toBe('anthropic');
    expect(request.options.agents?.coder?.maxTokens).toBe(8192);
  });

  it('an OpenAI-compatible run sends its base URL and, when set, its key', () => {
    const request = runRequestOf({
      ...DEFAULT_RUN_SETTINGS,
      provider: 'openai',
      openaiBaseUrl: 'http://localhost:11434/v1',
      openaiKey: 'secret',
    });
    expect(request.options).toMatchObject({ provider: 'openai', openaiBaseUrl: 'http://localhost:11434/v1' });
    expect(request.headers).toEqual({ 'x-openai-key': 'secret' });
  });
});
