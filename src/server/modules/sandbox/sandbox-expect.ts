import { arch } from 'node:os';
import { expect } from 'vitest';

/**
 * What every sandbox must show a hostile probe (sandbox-probe.ts), whoever started the server: no
 * capability, seccomp, no mount or namespace, no ptrace or keyring, no raw socket, and no network
 * of its own (the host's loopback out of reach, no host listener listed). For tests only.
 */
export function expectContained(facts: Record<string, string>): void {
  expect(facts.CapEff).toBe('0000000000000000');
  expect(facts.CapBnd).toBe('0000000000000000');
  expect(facts.Seccomp).toBe('2');
  expect(facts.unshare).toBe('denied');
  expect(facts.mount).toBe('denied');
  expect(facts.raw).toBe('denied');
  if (arch() === 'x64') {
    for (const call of ['ptrace', 'keyctl', 'setns', 'clone3', 'io_uring_setup']) {
      expect(facts[call], call).toBe('denied');
    }
  }
  expect(facts.net).toBe('ECONNREFUSED');
  expect(facts.listeners).toBe('0');
}
