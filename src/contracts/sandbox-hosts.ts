import { z } from 'zod';

/**
 * One entry of a sandbox's network allow-list: `example.com` (that host exactly), `*.example.com`
 * (its subdomains at any depth, not the apex), either with an optional `:port` (without one, any
 * port). IP literals are hosts like any other: `10.0.0.5`, `[2001:db8::1]:443`.
 */
export interface HostPattern {
  /** Canonical: lower case, no trailing dot, punycode, IPv6 compressed and without brackets. */
  host: string;
  /** `*.host`: any subdomain of `host`, not `host` itself. */
  wildcard: boolean;
  /** Null: any port. */
  port: number | null;
}

/** At most this many entries in a project's list (`sandboxAllowedHosts`). */
export const SANDBOX_ALLOWED_HOSTS_MAX = 100;

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** True for a canonical IP literal (see {@link canonicalHost}). */
export const isIpLiteral = (host: string) => host.includes(':') || IPV4.test(host);

/**
 * The canonical form of a host name or IP literal, or null when it is neither. The WHATWG URL
 * parser does the work (the same in the browser and in Node), so `Example.COM.`, `127.1` and
 * `[0:0::1]` come out as `example.com`, `127.0.0.1` and `::1`, as any client would read them.
 */
export function canonicalHost(text: string): string | null {
  let host = text.trim().toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.includes(':')) {
    const url = `http://[${host}]/`;
    return URL.canParse(url) ? new URL(url).hostname.slice(1, -1) : null;
  }
  host = host.replace(/\.$/, '');
  // Anything that would make the URL more than a host (user, port, path, query) is not a host.
  if (host === '' || /[\s/\\?#@%[\]:]/.test(host) || !URL.canParse(`http://${host}/`)) return null;
  const name = new URL(`http://${host}/`).hostname;
  const labels = name.split('.');
  const valid =
    name.length <= 253 && labels.every((label) => label.length <= 63 && /^[a-z0-9_-]+$/.test(label));
  return valid ? name : null;
}

/** Parses one allow-list entry; `error` says what is wrong with it. */
export function parseHostPattern(entry: string): { pattern: HostPattern } | { error: string } {
  const text = entry.trim();
  const wildcard = text.startsWith('*.');
  const rest = wildcard ? text.slice(2) : text;
  let hostText = rest;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(rest);
  if (bracketed) {
    hostText = bracketed[1] ?? '';
    portText = bracketed[2];
  } else if (rest.split(':').length === 2) {
    [hostText = '', portText] = rest.split(':');
  }
  const host = canonicalHost(hostText);
  if (host === null) return { error: `${entry}: not a host name or IP address` };
  if (wildcard && isIpLiteral(host)) return { error: `${entry}: an IP address cannot have a wildcard` };
  if (portText === undefined) return { pattern: { host, wildcard, port: null } };
  if (!/^\d+$/.test(portText)) return { error: `${entry}: not a host name or IP address` };
  const port = Number(portText);
  if (port < 1 || port > 65535) return { error: `${entry}: the port must be a number from 1 to 65535` };
  return { pattern: { host, wildcard, port } };
}

/** The entry as it would be written: `*.example.com:443`, `[::1]`. */
export function formatHostPattern(pattern: HostPattern): string {
  const host = pattern.host.includes(':') ? `[${pattern.host}]` : pattern.host;
  return `${pattern.wildcard ? '*.' : ''}${host}${pattern.port === null ? '' : `:${pattern.port}`}`;
}

/**
 * A project's own network allow-list (`sandboxAllowedHosts`): each entry is checked and stored in
 * its canonical form. It only ever narrows the operator's list (AUTOCODER_SANDBOX_ALLOWED_HOSTS).
 */
export const sandboxAllowedHostsSchema = z
  .array(
    z
      .string()
      .max(300)
      .superRefine((entry, ctx) => {
        const parsed = parseHostPattern(entry);
        if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
      })
      .overwrite((entry) => {
        const parsed = parseHostPattern(entry);
        return 'pattern' in parsed ? formatHostPattern(parsed.pattern) : entry;
      }),
  )
  .max(SANDBOX_ALLOWED_HOSTS_MAX, `At most ${SANDBOX_ALLOWED_HOSTS_MAX} hosts`);
