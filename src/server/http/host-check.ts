import { hostname as machineHostname, networkInterfaces } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../deps.js';
import { AppError } from '../lib/errors.js';

/** Which Host headers reach the app. */
export interface HostRules {
  /** Host header values (lower-case, `name:port`, or `name` alone for port 80/443) the app answers to. */
  own: ReadonlySet<string>;
  /** Hostnames the app answers to on any port: for tests, whose sockets listen on free ports. */
  ownOnAnyPort?: ReadonlySet<string>;
  /** `*.<baseDomain>` is reserved for app previews: 404 until they exist. */
  baseDomain: string;
}

export const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'] as const;

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** `[v6]` for an IPv6 literal, as it appears in a Host header. */
const bracketed = (address: string) =>
  address.includes(':') && !address.startsWith('[') ? `[${address}]` : address;

/** The machine's own name and interface addresses, for a server listening on every interface. */
export function machineNames(): string[] {
  const addresses = Object.values(networkInterfaces())
    .flat()
    .flatMap((info) => (info ? [info.address.split('%')[0] ?? info.address] : []));
  return [machineHostname(), ...addresses];
}

export interface HostRulesInput {
  /** AUTOCODER_PUBLIC_URL: when set, its host is the only one. */
  publicUrl: string | undefined;
  baseDomain: string;
  /** The interface the server listens on (HOST) and the port it got. */
  listenHost: string;
  port: number;
  /** Names of this machine; read from the OS when the server listens on every interface. */
  machine?: () => string[];
}

/**
 * The app's own hosts. With a public URL, its host only. Otherwise the loopback names (and the
 * listening address) on the listening port; on 0.0.0.0 / :: also the machine's hostname and its
 * interface addresses — names a DNS-rebinding page cannot make a browser send.
 */
export function hostRulesFor(input: HostRulesInput): HostRules {
  const own = new Set<string>();
  if (input.publicUrl) {
    const url = new URL(input.publicUrl);
    own.add(url.host.toLowerCase());
    const defaultPort = url.protocol === 'https:' ? '443' : '80';
    if (!url.port) own.add(`${url.hostname.toLowerCase()}:${defaultPort}`);
    return { own, baseDomain: input.baseDomain.toLowerCase() };
  }
  const names = new Set<string>(LOOPBACK_NAMES);
  if (WILDCARD.has(input.listenHost)) {
    for (const name of (input.machine ?? machineNames)()) names.add(bracketed(name.toLowerCase()));
  } else {
    names.add(bracketed(input.listenHost.toLowerCase()));
  }
  for (const name of names) {
    own.add(`${name}:${input.port}`);
    if (input.port === 80) own.add(name);
  }
  return { own, baseDomain: input.baseDomain.toLowerCase() };
}

/** `[::1]:3000` → `[::1]`, `Example.com:80` → `example.com`. */
function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1);
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** True when `host` (a Host header) is one the app answers to. */
export function isOwnHost(host: string, rules: HostRules): boolean {
  const lower = host.trim().toLowerCase();
  return rules.own.has(lower) || (rules.ownOnAnyPort?.has(hostnameOf(lower)) ?? false);
}

/**
 * Refuses requests addressed to a host that is not the app's own (DNS rebinding: a foreign name
 * resolving to our address) with 421, before any route runs. Subdomains of the base domain are
 * reserved for previews and answer 404.
 */
export function hostCheck(rules: () => HostRules): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const current = rules();
    // Without a Host header (in-process requests), the URL's host, which node-server builds from it.
    const host = (c.req.header('host') ?? new URL(c.req.url).host).trim().toLowerCase();
    const name = hostnameOf(host);
    const { baseDomain } = current;
    if (isOwnHost(host, current)) return next();
    if (name.endsWith(`.${baseDomain}`)) throw new AppError('NOT_FOUND', 'No preview is served here');
    throw new AppError('MISDIRECTED_REQUEST', 'This server does not answer to that host name');
  };
}
