import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_TOKEN_HEADER } from '@/contracts/engines';
import { DEFAULT_RUN_SETTINGS, effectiveProvider, loadRunSettings, runRequestOf } from './run-settings';

const KEY = 'sk-ant-abcdefgh12345678';
const TOKEN = 'sk-ant-oat01-abcdefgh12345678';

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

  it('an Anthropic run sends the Claude Code token as its own header, only when one is set', () => {
    expect(runRequestOf({ ...DEFAULT_RUN_SETTINGS, anthropicKey: KEY }).headers).not.toHaveProperty(
      CLAUDE_CODE_TOKEN_HEADER,
    );
    const both = runRequestOf({ ...DEFAULT_RUN_SETTINGS, anthropicKey: KEY, claudeCodeToken: ` ${TOKEN} ` });
    expect(both.headers).toEqual({ 'x-anthropic-key': KEY, [CLAUDE_CODE_TOKEN_HEADER]: TOKEN });
    expect(JSON.stringify(both.options)).not.toContain(TOKEN);
    const tokenOnly = runRequestOf({
      ...DEFAULT_RUN_SETTINGS,
      provider: 'anthropic',
      claudeCodeToken: TOKEN,
    });
    expect(tokenOnly.headers).toEqual({ [CLAUDE_CODE_TOKEN_HEADER]: TOKEN });
  });

  it('an OpenAI-compatible or simulated run never sends the Claude Code token', () => {
    for (const provider of ['openai', 'simulator'] as const) {
      const request = runRequestOf({ ...DEFAULT_RUN_SETTINGS, provider, claudeCodeToken: TOKEN });
      expect(request.headers).not.toHaveProperty(CLAUDE_CODE_TOKEN_HEADER);
      expect(JSON.stringify(request)).not.toContain(TOKEN);
    }
  });
});

describe('run settings in storage', () => {
  const storage = new Map<string, string>();
  const stubStorage = () => {
    Object.defineProperty(globalThis, 'window', {
      configurable: true,
      value: {
        localStorage: {
          getItem: (key: string) => storage.get(key) ?? null,
          setItem: (key: string, value: string) => storage.set(key, value),
        },
      },
    });
  };
  afterEach(() => {
    storage.clear();
    Reflect.deleteProperty(globalThis, 'window');
  });

  it('reads settings saved before the Claude Code token existed, with no token', () => {
    stubStorage();
    const { claudeCodeToken: _token, ...older } = { ...DEFAULT_RUN_SETTINGS, anthropicKey: KEY };
    storage.set('autocoder.run-settings.v1', JSON.stringify(older));
    expect(loadRunSettings()).toEqual({ ...DEFAULT_RUN_SETTINGS, anthropicKey: KEY });
  });
});
