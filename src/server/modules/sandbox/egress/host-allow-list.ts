import {
  canonicalHost,
  formatHostPattern,
  type HostPattern,
  parseHostPattern,
} from '@/contracts/sandbox-hosts.js';

export type { HostPattern } from '@/contracts/sandbox-hosts.js';

/**
 * The operator's list (`AUTOCODER_SANDBOX_ALLOWED_HOSTS`): entries separated by commas or
 * whitespace. Every entry that does not parse is named in `errors`, so start-up can refuse the
 * whole setting instead of quietly running with part of it.
 */
export function parseAllowList(text: string | readonly string[]): {
  patterns: HostPattern[];
  errors: string[];
} {
  const entries = typeof text === 'string' ? text.split(/[\s,]+/) : text;
  const patterns: HostPattern[] = [];
  const errors: string[] = [];
  for (const entry of entries) {
    if (entry.trim() === '') continue;
    const parsed = parseHostPattern(entry);
    if ('error' in parsed) errors.push(parsed.error);
    else patterns.push(parsed.pattern);
  }
  return { patterns: dedupe(patterns), errors };
}

/** True when `pattern` admits a connection to `host` (canonical) on `port`. */
export function patternMatches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== null && pattern.port !== port) return false;
  return pattern.wildcard ? host.endsWith(`.${pattern.host}`) : host === pattern.host;
}

/** True when some entry of `list` admits `host` (in any spelling a client may send) on `port`. */
export function allowListAllows(list: readonly HostPattern[], host: string, port: number): boolean {
  const canonical = canonicalHost(host);
  return canonical !== null && list.some((pattern) => patternMatches(pattern, canonical, port));
}

/** The `allow` predicate of an egress proxy over one list. */
export function allowListPredicate(list: readonly HostPattern[]): (host: string, port: number) => boolean {
  return (host, port) => allowListAllows(list, host, port);
}

/**
 * The list a project's sandboxes get: exactly the connections both lists admit. A project without
 * a list of its own (`undefined`) gets the operator's; an empty list means no network at all.
 *
 * Each project entry is cut down to what the operator allows of it, pairwise, which stays an
 * entry because two entries intersect in at most one entry:
 * - a wildcard meets a host inside it as that host: the project's `*.example.com` under the
 *   operator's `api.example.com` gives `api.example.com`, and the project's `registry.npmjs.org`
 *   under the operator's `*.npmjs.org` stays `registry.npmjs.org`;
 * - two wildcards give the narrower one (`*.a.example.com` within `*.example.com`); a wildcard
 *   never covers its apex, so `*.example.com` and `example.com` share nothing;
 * - a port narrows "any port": `example.com` under the operator's `example.com:443` gives
 *   `example.com:443`; two different ports share nothing.
 * A project entry the operator's list admits nothing of disappears (see {@link ignoredEntries}).
 */
export function narrowAllowList(
  operator: readonly HostPattern[],
  project: readonly HostPattern[] | undefined,
): HostPattern[] {
  if (project === undefined) return [...operator];
  return dedupe(project.flatMap((wanted) => operator.flatMap((given) => intersect(wanted, given) ?? [])));
}

/** The project's entries the operator's list admits nothing of: worth a warning in the settings. */
export function ignoredEntries(
  operator: readonly HostPattern[],
  project: readonly HostPattern[],
): HostPattern[] {
  return project.filter((wanted) => operator.every((given) => intersect(wanted, given) === null));
}

/** The one entry admitting exactly what both admit, or null when they share nothing. */
export function intersect(a: HostPattern, b: HostPattern): HostPattern | null {
  if (a.port !== null && b.port !== null && a.port !== b.port) return null;
  const port = a.port ?? b.port;
  const within = (inner: string, outer: string) => inner.endsWith(`.${outer}`);
  if (!a.wildcard && !b.wildcard) return a.host === b.host ? { ...a, port } : null;
  if (!a.wildcard) return within(a.host, b.host) ? { ...a, port } : null;
  if (!b.wildcard) return within(b.host, a.host) ? { ...b, port } : null;
  if (a.host === b.host || within(a.host, b.host)) return { ...a, port };
  return within(b.host, a.host) ? { ...b, port } : null;
}

function dedupe(patterns: readonly HostPattern[]): HostPattern[] {
  const seen = new Map(patterns.map((pattern) => [formatHostPattern(pattern), pattern]));
  return [...seen.values()];
}
