import { describe, expect, it } from 'vitest';
import { resolveSandboxMode } from './sandbox-mode.js';

describe('the sandbox mode', () => {
  it('is bubblewrap when installed and nothing is chosen', () => {
    expect(resolveSandboxMode({ requested: undefined, host: '0.0.0.0', bwrapPath: '/usr/bin/bwrap' })).toBe(
      'bwrap',
    );
  });

  it('without bubblewrap, is host on a loopback server and off on one others can reach', () => {
    expect(resolveSandboxMode({ requested: undefined, host: '127.0.0.1', bwrapPath: null })).toBe('host');
    expect(resolveSandboxMode({ requested: undefined, host: 'localhost', bwrapPath: null })).toBe('host');
    expect(resolveSandboxMode({ requested: undefined, host: '0.0.0.0', bwrapPath: null })).toBe('off');
    expect(resolveSandboxMode({ requested: undefined, host: '192.168.1.20', bwrapPath: null })).toBe('off');
  });

  it("is the operator's choice when set", () => {
    expect(resolveSandboxMode({ requested: 'host', host: '0.0.0.0', bwrapPath: '/usr/bin/bwrap' })).toBe(
      'host',
    );
    expect(resolveSandboxMode({ requested: 'off', host: '127.0.0.1', bwrapPath: '/usr/bin/bwrap' })).toBe(
      'off',
    );
  });

  it('refuses to start with bwrap chosen but not installed', () => {
    expect(() => resolveSandboxMode({ requested: 'bwrap', host: '127.0.0.1', bwrapPath: null })).toThrow(
      /bwrap was not found/,
    );
  });
});
