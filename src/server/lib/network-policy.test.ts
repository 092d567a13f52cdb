import { describe, expect, it } from 'vitest';
import { createNetworkPolicy, isLoopbackHost, isPublicAddress } from './network-policy.js';

const REFUSED = [
  '127.0.0.1',
  '127.255.255.254',
  '0.0.0.0',
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.255',
  '192.168.1.1',
  '100.64.0.1',
  '100.127.255.255',
  '169.254.169.254',
  '224.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  '[::1]',
  '0:0:0:0:0:0:0:1',
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '[::ffff:127.0.0.1]',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '::ffff:a9fe:a9fe',
  '::127.0.0.1',
  '64:ff9b::127.0.0.1',
  '64:ff9b::a00:1',
  '2002:7f00:1::',
  '2002:c0a8:101::1',
  'fc00::1',
  'fd12:3456:789a::1',
  'fe80::1',
  'fe80::1%eth0',
  'febf::1',
  'fec0::1',
  'ff02::1',
  'not-an-address',
  '',
];

const PUBLIC = [
  '8.8.8.8',
  '1.1.1.1',
  '172.15.255.255',
  '172.32.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '169.253.0.1',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '::ffff:8.8.8.8',
  '64:ff9b::808:808',
  '2002:808:808::1',
];

describe('isPublicAddress', () => {
  it.each(REFUSED)('refuses %s', (address) => expect(isPublicAddress(address)).toBe(false));
  it.each(PUBLIC)('accepts %s', (address) => expect(isPublicAddress(address)).toBe(true));
});

describe('createNetworkPolicy', () => {
  it('refuses non-public addresses when the server is reachable from elsewhere', () => {
    const policy = createNetworkPolicy({ serverOnLoopback: false });
    expect(policy.allows('example.com', '93.184.215.14')).toBe(true);
    expect(policy.allows('example.com', '127.0.0.1')).toBe(false);
    expect(policy.allows('metadata.internal', '169.254.169.254')).toBe(false);
  });

  it('allows every address to a server that listens on loopback only', () => {
    const policy = createNetworkPolicy({ serverOnLoopback: true });
    expect(policy.allows('localhost', '127.0.0.1')).toBe(true);
    expect(policy.allows('x', '10.0.0.1')).toBe(true);
  });

  it('allows the hosts the operator named, whatever they resolve to, and only those', () => {
    const policy = createNetworkPolicy({
      serverOnLoopback: false,
      allowedHosts: ['Ollama.Lan', '10.0.0.5', '[fd00::5]'],
    });
    expect(policy.allows('ollama.lan.', '10.1.2.3')).toBe(true);
    expect(policy.allows('10.0.0.5', '10.0.0.5')).toBe(true);
    expect(policy.allows('[fd00::5]', 'fd00::5')).toBe(true);
    expect(policy.allows('other.lan', '10.1.2.3')).toBe(false);
    expect(policy.allows('10.0.0.6', '10.0.0.6')).toBe(false);
  });
});

describe('isLoopbackHost', () => {
  it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]'])('%s is loopback', (host) =>
    expect(isLoopbackHost(host)).toBe(true),
  );
  it.each(['0.0.0.0', '::', '192.168.1.10', 'example.com'])('%s is not', (host) =>
    expect(isLoopbackHost(host)).toBe(false),
  );
});
