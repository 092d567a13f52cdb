import type { ServerResponse } from 'node:http';
import { secureHeaderPairs } from './secure-headers.js';

/** The security headers, flat (`[name, value, name, value …]`) for `writeHead`, per base domain. */
const flatSecureHeaders = new Map<string, string[]>();

/**
 * Writes an answer below Hono with the app's security headers, as the app's own answers carry
 * them (http/agent-requests.ts, http/board-requests.ts). A body of null sends none: with
 * `Content-Length: 0`, except on a 304, which has no body to measure.
 */
export async function writeAnswer(
  res: ServerResponse,
  baseDomain: string,
  status: number,
  headers: Record<string, string>,
  body: string | Uint8Array | null,
): Promise<void> {
  let secure = flatSecureHeaders.get(baseDomain);
  if (!secure) {
    secure = (await secureHeaderPairs(baseDomain)).flat();
    flatSecureHeaders.set(baseDomain, secure);
  }
  const all = [...secure];
  for (const name in headers) all.push(name, headers[name] as string);
  if (status !== 304) {
    const length = body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    all.push('content-length', String(length));
  }
  res.writeHead(status, all);
  res.end(body ?? undefined);
}
