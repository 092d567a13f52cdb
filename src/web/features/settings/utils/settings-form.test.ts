import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_SETTINGS } from '@/web/lib/run-settings';
import { fromForm, hasErrors, toForm, validateForm } from './settings-form';

const form = (changes = {}) => ({ ...toForm(DEFAULT_RUN_SETTINGS), ...changes });

describe('settings form', () => {
  it('accepts the defaults and round-trips them', () => {
    expect(hasErrors(validateForm(form()))).toBe(false);
    expect(fromForm(form())).toEqual(DEFAULT_RUN_SETTINGS);
  });

  it('refuses what is not an Anthropic key, and accepts one that is', () => {
    expect(validateForm(form({ anthropicKey: 'sk-12345' })).anthropicKey).toBeDefined();
    expect(validateForm(form({ anthropicKey: 'sk-ant-api03-abcdefgh' })).anthropicKey).toBeUndefined();
  });

  it('wants an http(s) base URL and token budgets the server allows', () => {
    expect(validateForm(form({ openaiBaseUrl: 'ftp://x' })).openaiBaseUrl).toBeDefined();
    const agents = { ...form().agents, coder: { model: '', maxTokens: '100' } };
    expect(validateForm(form({ agents })).agents?.coder).toEqual({
      model: 'Required',
      maxTokens: expect.stringContaining('256'),
    });
  });

  it('keeps a Claude Code token trimmed, and refuses one that cannot travel as a header', () => {
    expect(fromForm(form({ claudeCodeToken: ' sk-ant-oat01-abc \n' })).claudeCodeToken).toBe(
      'sk-ant-oat01-abc',
    );
    expect(validateForm(form({ claudeCodeToken: 'sk-ant-oat01-abc' })).claudeCodeToken).toBeUndefined();
    expect(validateForm(form({ claudeCodeToken: 'two words' })).claudeCodeToken).toBeDefined();
    expect(validateForm(form({ claudeCodeToken: 'tökén' })).claudeCodeToken).toBeDefined();
  });
});
