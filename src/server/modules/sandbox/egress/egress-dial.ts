import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';
import { canonicalHost } from '@/contracts/sandbox-hosts.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a name (`dns.lookup` with `all: true` by default; a table in tests). */
export type EgressLookup = (host: string) => Promise<ResolvedAddress[]>;

/**
 * Which addresses a host may reach: `lib/network-policy.ts`'s NetworkPolicy fits. Build it with
 * `serverOnLoopback: false` (a sandbox may not reach the operator's loopback even on a personal
 * install) and AUTOCODER_ALLOWED_HOSTS as `allowedHosts` (an internal registry mirror).
 */
export interface AddressPolicy {
  allows(host: string, address: string): boolean;
}

/** Why a target was refused: not on the allow-list, or a name that resolves to a private address. */
export type DenyReason = 'not-allowed' | 'private-address';

export type DialFailure = DenyReason | 'bad-target' | 'unresolved' | 'refused' | 'unreachable';

export type DialResult =
  | { ok: true; socket: net.Socket; host: string }
  | { ok: false; failure: DialFailure; host: string; detail?: string };

export interface DialOptions {
  allow: (host: string, port: number) => boolean;
  policy: AddressPolicy;
  lookup: EgressLookup;
  connectTimeoutMs: number;
  /** Sees every upstream socket as it is created, so closing the proxy can end it mid-connect. */
  track: (socket: net.Socket) => void;
}

export const systemLookup: EgressLookup = (host) => dnsLookup(host, { all: true });

/**
 * A connection to `host`:`port` for a sandbox, or why not. The name is resolved once, every address
 * it resolves to is checked against the policy (one private address refuses the name: a rebinding
 * name answers a public address to one lookup and a private one to the next), and the socket goes
 * to a checked address, never to the name: nothing resolves it a second time.
 */
export async function dial(rawHost: string, port: number, options: DialOptions): Promise<DialResult> {
  const host = canonicalHost(rawHost);
  if (host === null || !Number.isInteger(port) || port < 1 || port > 65535) {
    return { ok: false, failure: 'bad-target', host: rawHost };
  }
  if (!options.allow(host, port)) return { ok: false, failure: 'not-allowed', host };
  const family = net.isIP(host);
  let addresses: ResolvedAddress[];
  try {
    addresses = family ? [{ address: host, family }] : await options.lookup(host);
  } catch (error) {
    return { ok: false, failure: 'unresolved', host, detail: (error as NodeJS.ErrnoException).code };
  }
  if (addresses.length === 0) return { ok: false, failure: 'unresolved', host };
  if (addresses.some(({ address }) => !options.policy.allows(host, address))) {
    return { ok: false, failure: 'private-address', host };
  }
  // IPv4 first: a host whose IPv6 route is missing fails over slowly, and most hosts answer both.
  const ordered = [...addresses].sort((a, b) => a.family - b.family);
  let failure: DialFailure = 'unreachable';
  let detail: string | undefined;
  for (const { address } of ordered) {
    const attempt = await connect(address, port, options);
    if (attempt instanceof net.Socket) return { ok: true, socket: attempt, host };
    detail = attempt.code;
    if (attempt.code === 'ECONNREFUSED') failure = 'refused';
  }
  return { ok: false, failure, host, detail };
}

function connect(
  address: string,
  port: number,
  options: DialOptions,
): Promise<net.Socket | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    // An IP literal as `host`: net connects to it without a lookup.
    const socket = net.connect({ host: address, port, allowHalfOpen: true });
    options.track(socket);
    // Errors end in 'close', which whoever holds the socket watches; this keeps them from throwing.
    socket.on('error', () => {});
    const timer = setTimeout(
      () => socket.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
      options.connectTimeoutMs,
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('close', () => {
      clearTimeout(timer);
      const error = (socket.errored as NodeJS.ErrnoException | null) ?? undefined;
      resolve(error ?? Object.assign(new Error('connection closed'), { code: 'ECONNABORTED' }));
    });
  });
}

/** Dials for one proxy instance: {@link dial} with that instance's rules and bookkeeping. */
export type Dialer = (host: string, port: number) => Promise<DialResult>;

/** One line for the sandboxed client (a 403/502 body) and the log, naming the host and why. */
export function describeFailure(result: Extract<DialResult, { ok: false }>, port: number): string {
  const { host, detail } = result;
  const because = detail ? ` (${detail})` : '';
  switch (result.failure) {
    case 'not-allowed':
      return `${host}:${port} is not on this sandbox's network allow-list`;
    case 'private-address':
      return `${host} resolves to a loopback, private or link-local address, which a sandbox may not reach`;
    case 'bad-target':
      return `${host}:${port} is not a host name or IP address with a port`;
    case 'unresolved':
      return `${host} could not be resolved${because}`;
    case 'refused':
      return `${host}:${port} refused the connection`;
    case 'unreachable':
      return `${host}:${port} could not be reached${because}`;
  }
}
