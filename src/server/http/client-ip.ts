import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * The client's address: the socket's, or, when a proxy is trusted, the right-most X-Forwarded-For
 * hop — the one our proxy appended. Hops left of it are whatever the client chose to send.
 */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return forwarded;
  }
  // Requests made in-process (app.request in tests) have no socket.
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming ? (getConnInfo(c).remote.address ?? 'unknown') : 'in-process';
}

/** True when the request reached us over https (directly, or through a trusted proxy). */
export function isHttps(c: Context, trustProxy: boolean): boolean {
  if (trustProxy && c.req.header('x-forwarded-proto')?.split(',')[0]?.trim() === 'https') return true;
  return new URL(c.req.url).protocol === 'https:';
}
