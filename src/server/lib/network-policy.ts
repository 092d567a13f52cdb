import { isIP } from 'node:net';

/**
 * Which addresses a server-side request to a user-chosen URL (an OpenAI-compatible base URL, a git
 * import URL) may reach. Loopback, private, link-local and other non-public addresses are refused,
 * unless the server itself only listens on loopback (a personal install: the user is the operator)
 * or the operator named the host in AUTOCODER_ALLOWED_HOSTS. Pure: DNS happens in guarded-fetch.ts.
 */
export interface NetworkPolicy {
  /** True when a request for `host` may connect to `address` (one of the host's resolved addresses). */
  allows(host: string, address: string): boolean;
}

export interface NetworkPolicyOptions {
  /** The server listens on a loopback address only. */
  serverOnLoopback: boolean;
  /** Host names (or IP literals) that may resolve to non-public addresses. */
  allowedHosts?: readonly string[];
}

export function createNetworkPolicy(options: NetworkPolicyOptions): NetworkPolicy {
  const allowed = new Set((options.allowedHosts ?? []).map(normalizeHost).filter(Boolean));
  return {
    allows(host, address) {
      if (options.serverOnLoopback || allowed.has(normalizeHost(host))) return true;
      return isPublicAddress(address);
    },
  };
}

/** "Example.COM." → "example.com", "[::1]" → "::1". */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
}

/** True for the names and addresses of the loopback interface (the HOST the server listens on). */
export function isLoopbackHost(host: string): boolean {
  const name = normalizeHost(host);
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const v4 = ipv4Of(name) ?? mappedIpv4Of(ipv6Of(name));
  if (v4 !== null) return v4 >>> 24 === 127;
  return ipv6Of(name)?.join(':') === '0:0:0:0:0:0:0:1';
}

/** IPv4 ranges that are not global unicast: [first address, prefix length]. */
const V4_BLOCKED: ReadonlyArray<[string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata lives here)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/** True when `address` (an IP literal) is a public unicast address; false for anything else. */
export function isPublicAddress(address: string): boolean {
  const bare = normalizeHost(address).replace(/%.*$/, '');
  if (isIP(bare) === 4) return isPublicV4(ipv4Of(bare));
  if (isIP(bare) === 6) return isPublicV6(ipv6Of(bare));
  return false;
}

function isPublicV4(value: number | null): boolean {
  if (value === null) return false;
  return !V4_BLOCKED.some(([first, bits]) => {
    const base = ipv4Of(first) ?? 0;
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (value & mask) >>> 0 === (base & mask) >>> 0;
  });
}

function isPublicV6(words: number[] | null): boolean {
  if (!words) return false;
  const [w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0] = words;
  const embedded = ((w6 << 16) | w7) >>> 0;
  const zeroTo = (n: number) => words.slice(0, n).every((w) => w === 0);
  // ::/96 (unspecified, loopback, IPv4-compatible) and ::ffff:0:0/96 (IPv4-mapped): the IPv4 inside decides.
  if (zeroTo(5) && (w5 === 0 || w5 === 0xffff)) return w5 === 0xffff ? isPublicV4(embedded) : false;
  // NAT64 (64:ff9b::/96) reaches the IPv4 inside it.
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0)
    return isPublicV4(embedded);
  // 6to4 (2002::/16) carries an IPv4 in its next 32 bits.
  if (w0 === 0x2002) return isPublicV4(((w1 << 16) | w2) >>> 0);
  if ((w0 & 0xfe00) === 0xfc00) return false; // unique local fc00::/7
  if ((w0 & 0xffc0) === 0xfe80) return false; // link-local fe80::/10
  if ((w0 & 0xffc0) === 0xfec0) return false; // site-local fec0::/10 (deprecated)
  if ((w0 & 0xff00) === 0xff00) return false; // multicast ff00::/8
  return true;
}

function mappedIpv4Of(words: number[] | null): number | null {
  if (!words) return null;
  if (!words.slice(0, 5).every((w) => w === 0) || words[5] !== 0xffff) return null;
  return (((words[6] ?? 0) << 16) | (words[7] ?? 0)) >>> 0;
}

/** "10.1.2.3" → its 32-bit value, or null when not a dotted quad. */
function ipv4Of(text: string): number | null {
  if (isIP(text) !== 4) return null;
  return text.split('.').reduce((acc, part) => ((acc << 8) | Number(part)) >>> 0, 0);
}

/** An IPv6 literal → its eight 16-bit words (a trailing dotted quad included), or null. */
function ipv6Of(text: string): number[] | null {
  if (isIP(text) !== 6) return null;
  let body = text;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (quad?.[1]) {
    const v4 = ipv4Of(quad[1]);
    if (v4 === null) return null;
    body = `${body.slice(0, -quad[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = body.split('::');
  const parse = (part: string) => (part ? part.split(':').map((w) => Number.parseInt(w, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  const words = [...left, ...fill, ...right];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff)
    ? words
    : null;
}
