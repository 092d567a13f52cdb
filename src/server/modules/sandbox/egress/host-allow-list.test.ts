import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatHostPattern, type HostPattern, sandboxAllowedHostsSchema } from '@/contracts/sandbox-hosts.js';
import {
  allowListAllows,
  ignoredEntries,
  intersect,
  narrowAllowList,
  parseAllowList,
  patternMatches,
} from './host-allow-list.js';

const list = (text: string) => {
  const { patterns, errors } = parseAllowList(text);
  expect(errors).toEqual([]);
  return patterns;
};

describe('the allow-list', () => {
  it('matches a host exactly, a wildcard its subdomains but not its apex, a port only that port', () => {
    const allowed = list('registry.npmjs.org, *.pythonhosted.org github.com:443 [2001:db8::1]:80 10.0.0.5');
    expect(allowListAllows(allowed, 'registry.npmjs.org', 443)).toBe(true);
    expect(allowListAllows(allowed, 'evil-registry.npmjs.org', 443)).toBe(false);
    expect(allowListAllows(allowed, 'npmjs.org', 443)).toBe(false);
    expect(allowListAllows(allowed, 'files.pythonhosted.org', 443)).toBe(true);
    expect(allowListAllows(allowed, 'a.b.pythonhosted.org', 8080)).toBe(true);
    expect(allowListAllows(allowed, 'pythonhosted.org', 443)).toBe(false);
    expect(allowListAllows(allowed, 'pythonhosted.org.evil.com', 443)).toBe(false);
    expect(allowListAllows(allowed, 'github.com', 443)).toBe(true);
    expect(allowListAllows(allowed, 'github.com', 22)).toBe(false);
    expect(allowListAllows(allowed, '[2001:0db8:0::1]', 80)).toBe(true);
    expect(allowListAllows(allowed, '2001:db8::1', 443)).toBe(false);
    expect(allowListAllows(allowed, '10.0.0.5', 5432)).toBe(true);
    expect(allowListAllows(allowed, '10.0.0.6', 5432)).toBe(false);
  });

  it('ignores case and a trailing dot on both sides, and reads IP literals as clients do', () => {
    const allowed = list('Registry.NPMJS.org. 127.0.0.1');
    expect(allowListAllows(allowed, 'REGISTRY.npmjs.ORG.', 443)).toBe(true);
    expect(allowListAllows(allowed, '127.1', 80)).toBe(true);
    expect(allowListAllows(allowed, 'not a host', 80)).toBe(false);
  });

  it('names every entry it cannot read', () => {
    const { patterns, errors } = parseAllowList(
      'ok.example, *, *.10.0.0.1, a!b:1, x.example:70000, http://x',
    );
    expect(patterns.map(formatHostPattern)).toEqual(['ok.example']);
    expect(errors).toEqual([
      '*: not a host name or IP address',
      '*.10.0.0.1: an IP address cannot have a wildcard',
      'a!b:1: not a host name or IP address',
      'x.example:70000: the port must be a number from 1 to 65535',
      'http://x: not a host name or IP address',
    ]);
    expect(parseAllowList('').patterns).toEqual([]);
  });

  it('checks and canonicalises a project list', () => {
    expect(sandboxAllowedHostsSchema.parse([' Registry.NPMJS.org.:443 ', '[::1]'])).toEqual([
      'registry.npmjs.org:443',
      '[::1]',
    ]);
    const refused = sandboxAllowedHostsSchema.safeParse(['ok.example', 'user@evil.example']);
    expect(refused.error?.issues.map((issue) => [issue.path, issue.message])).toEqual([
      [[1], 'user@evil.example: not a host name or IP address'],
    ]);
  });
});

describe('narrowing a project list to the operator list', () => {
  const narrowed = (operator: string, project: string) =>
    narrowAllowList(list(operator), list(project)).map(formatHostPattern);

  it('keeps of each project entry what the operator allows of it', () => {
    expect(narrowed('*.npmjs.org', 'registry.npmjs.org')).toEqual(['registry.npmjs.org']);
    expect(narrowed('api.example.com:443', '*.example.com')).toEqual(['api.example.com:443']);
    expect(narrowed('*.example.com', '*.a.example.com')).toEqual(['*.a.example.com']);
    expect(narrowed('*.a.example.com', '*.example.com')).toEqual(['*.a.example.com']);
    expect(narrowed('example.com:443', 'example.com')).toEqual(['example.com:443']);
    expect(narrowed('example.com', '*.example.com')).toEqual([]);
    expect(narrowed('example.com:443', 'example.com:80')).toEqual([]);
    expect(narrowed('github.com', 'evil.com')).toEqual([]);
  });

  it('gives the operator list to a project without one, and nothing to an empty one', () => {
    const operator = list('github.com *.npmjs.org');
    expect(narrowAllowList(operator, undefined)).toEqual(operator);
    expect(narrowAllowList(operator, [])).toEqual([]);
  });

  it('names the project entries the operator allows nothing of', () => {
    expect(
      ignoredEntries(list('*.npmjs.org'), list('registry.npmjs.org evil.com')).map(formatHostPattern),
    ).toEqual(['evil.com']);
  });

  // Hosts and entries over a small alphabet, so that entries and hosts often overlap.
  const label = fc.constantFrom('a', 'b', 'c');
  const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
  const port = fc.constantFrom(80, 443);
  const pattern: fc.Arbitrary<HostPattern> = fc.record({
    host,
    wildcard: fc.boolean(),
    port: fc.option(port, { nil: null }),
  });
  const patterns = fc.array(pattern, { maxLength: 4 });

  it('admits exactly what both lists admit (property)', () => {
    fc.assert(
      fc.property(patterns, patterns, host, port, (operator, project, target, targetPort) => {
        const both =
          allowListAllows(operator, target, targetPort) && allowListAllows(project, target, targetPort);
        expect(allowListAllows(narrowAllowList(operator, project), target, targetPort)).toBe(both);
      }),
    );
  });

  it('intersects two entries into one that matches exactly when both match (property)', () => {
    fc.assert(
      fc.property(pattern, pattern, host, port, (a, b, target, targetPort) => {
        const meet = intersect(a, b);
        const both = patternMatches(a, target, targetPort) && patternMatches(b, target, targetPort);
        expect(meet !== null && patternMatches(meet, target, targetPort)).toBe(both);
      }),
    );
  });
});
