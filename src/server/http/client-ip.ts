import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** The client's address: the socket's, or the first X-Forwarded-For hop when a proxy is trusted. */
export function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
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
