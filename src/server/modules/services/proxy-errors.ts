import { STATUS_CODES } from 'node:http';
import type { ProxyTarget } from './proxy-target.js';

/** An answer written straight to a socket (the proxy answers outside Hono). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const wantsHtml = (accept: string | undefined) => accept?.includes('text/html') ?? false;

/**
 * An error as JSON (`{ error, message, ...details }`, the API's shape), or, for a browser, a small
 * page saying the same; `refreshSeconds` makes the page try again by itself.
 */
export function errorAnswer(
  status: number,
  body: { error: string; message: string; [key: string]: unknown },
  accept: string | undefined,
  refreshSeconds?: number,
): RawAnswer {
  const common = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  if (!wantsHtml(accept)) {
    return {
      status,
      headers: { ...common, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
    };
  }
  const refresh = refreshSeconds ? `<meta http-equiv="refresh" content="${refreshSeconds}">` : '';
  const html = `<!doctype html><html><head><meta charset="utf-8">${refresh}<title>${status} ${escapeHtml(STATUS_CODES[status] ?? '')}</title><style>body{font-family:system-ui,sans-serif;margin:3rem;color:#222}code{background:#eee;padding:0 .3em}</style></head><body><h1>${escapeHtml(STATUS_CODES[status] ?? String(status))}</h1><p>${escapeHtml(body.message)}</p><p><code>${escapeHtml(body.error)}</code></p></body></html>`;
  return {
    status,
    headers: {
      ...common,
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
    },
    body: html,
  };
}

/**
 * Does `error` say that nothing listens on the service's port? Over TCP, the connection is
 * refused. Over a Unix socket bridged into the service's sandbox, the bridge accepts and then,
 * when nothing listens inside, closes before a byte of answer: a new connection (`fresh`) that
 * ends so says the same, and so does a bridge whose socket is gone.
 */
function refused(error: Error, target: ProxyTarget, fresh: boolean): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return true;
  if (!('socketPath' in target.endpoint)) return false;
  return code === 'ENOENT' || (fresh && (code === 'ECONNRESET' || code === 'EPIPE'));
}

/**
 * The proxy's answer when the service could not be reached: 503 `connection_refused` when
 * nothing listens on its port (a page that reloads itself for a browser: a dev server that is
 * still starting will answer soon), 502 `bad_gateway` for any other failure. `fresh`: the
 * connection was opened for this request (not a kept-alive one the service may have closed).
 */
export function proxyErrorAnswer(
  error: Error,
  target: ProxyTarget,
  accept: string | undefined,
  fresh: boolean,
): RawAnswer {
  const { port } = target;
  const code = (error as NodeJS.ErrnoException).code;
  if (refused(error, target, fresh)) {
    return errorAnswer(
      503,
      {
        error: 'connection_refused',
        port,
        message: `Nothing accepts connections on port ${port} yet. If the service is starting, try again in a moment.`,
      },
      accept,
      2,
    );
  }
  return errorAnswer(
    502,
    {
      error: 'bad_gateway',
      port,
      message: `The service on port ${port} could not be reached (${code ?? 'error'}).`,
    },
    accept,
  );
}

/** A raw HTTP/1.1 answer for a socket whose Upgrade was refused. */
export function upgradeErrorAnswer(answer: RawAnswer): string {
  const headers = {
    ...answer.headers,
    'content-length': String(Buffer.byteLength(answer.body)),
    connection: 'close',
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${answer.body}`;
}
