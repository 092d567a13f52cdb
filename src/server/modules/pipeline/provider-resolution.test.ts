import { describe, expect, it } from 'vitest';
import { resolveProvider } from './provider-resolution.js';

const KEY = `sk-ant-${'a'.repeat(40)}`;
const OPERATOR_KEY = `sk-ant-${'o'.repeat(40)}`;

describe('the Claude Code token a run uses', () => {
  it('is the person’s when they send one, else the operator’s only with the operator’s key', () => {
    const defaults = { anthropicApiKey: OPERATOR_KEY, claudeCodeToken: 'operator-token' };
    expect(
      resolveProvider('anthropic', {}, { anthropicKey: KEY, claudeCodeToken: 'mine' }, defaults),
    ).toMatchObject({
      anthropicKey: KEY,
      claudeCodeToken: 'mine',
    });
    // A person who brings their own key does not run Claude Code on the operator's subscription.
    expect(resolveProvider('anthropic', {}, { anthropicKey: KEY }, defaults).claudeCodeToken).toBeUndefined();
    expect(resolveProvider('anthropic', {}, {}, defaults)).toMatchObject({
      anthropicKey: OPERATOR_KEY,
      claudeCodeToken: 'operator-token',
    });
    expect(resolveProvider('simulator', {}, { claudeCodeToken: 'mine' }, defaults)).toEqual({
      provider: 'simulator',
    });
  });
});
