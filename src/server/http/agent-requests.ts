import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { getRequestListener } from '@hono/node-server';
import type { z } from 'zod';
import { checkStatusSchema, postStatusSchema } from '@/contracts/coordination.js';
import type { AppDeps } from '../deps.js';
import { bearerToken } from '../lib/bearer.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../lib/validate.js';
import { checkStatus, postStatus } from '../modules/coordination/coordination.js';
import { quickCheckStatusInput, quickPostStatusInput } from '../modules/coordination/quick-input.js';
import { type Agent, resolveToken } from '../modules/coordination/tokens.js';
import type { McpEndpoint } from '../modules/mcp/mcp-http.js';
import { declaredLength, MAX_BODY_BYTES } from './body-size.js';
import { errorAnswer } from './error-answer.js';
import { type HostRules, isOwnHost } from './host-check.js';
import { isCrossOriginWrite } from './middleware.js';
import { writeAnswer } from './raw-answer.js';

type Fetch = Parameters<typeof getRequestListener>[0];

/** The agents' two REST calls: what they read and what answers them (coordination.routes.ts). */
const REST_CALLS = {
  '/api/check_status': (deps: AppDeps, agent: Agent, body: unknown) => {
    const input = quickCheckStatusInput(body) ?? parsed(checkStatusSchema, body);
    return input ? checkStatus(deps, agent, input) : null;
  },
  '/api/post_status': (deps: AppDeps, agent: Agent, body: unknown) => {
    const input = quickPostStatusInput(body) ?? parsed(postStatusSchema, body);
    return input ? postStatus(deps, agent, input) : null;
  },
} as const;
type RestPath = keyof typeof REST_CALLS;

/** The schema's output, or null: the app then answers the same body with its 400. */
function parsed<S extends z.ZodType>(schema: S, body: unknown): z.output<S> | null {
  const result = schema.safeParse(body);
  return result.success ? result.data : null;
}

const isRestPath = (url: string | undefined): url is RestPath =>
  url !== undefined && Object.hasOwn(REST_CALLS, url);

/** What Hono's `c.json` sends, and what the MCP transport answers. */
const JSON_TYPE = 'application/json';

/** The decoding of a web Request's `text()` (a byte-order mark dropped, bad bytes replaced). */
const utf8 = new TextDecoder();

const header = (req: IncomingMessage, name: string) => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** The request's body, whole (its length was declared and checked: Node reads exactly that many bytes). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted'));
    });
  });
}

/** Hands a request whose body was read to the app, as a web Request, and writes what it answers. */
async function appAnswers(fetch: Fetch, req: IncomingMessage, res: ServerResponse, body: Buffer) {
  const scheme = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const request = new Request(`${scheme}://${req.headers.host}${req.url}`, {
    method: req.method ?? 'POST',
    headers,
    body: new Uint8Array(body),
  });
  const response = (await fetch(request, { incoming: req, outgoing: res })) as Response;
  const answer = Buffer.from(await response.arrayBuffer());
  const cookies = response.headers.getSetCookie();
  for (const [name, value] of response.headers) {
    if (name !== 'set-cookie' && name !== 'content-length' && name !== 'transfer-encoding')
      res.setHeader(name, value);
  }
  if (cookies.length > 0) res.setHeader('set-cookie', cookies);
  res.setHeader('content-length', answer.length);
  res.writeHead(response.status);
  res.end(answer);
}

/**
 * The node server's request listener, in front of the app, for what agents call in closed loop:
 * POST /api/check_status, POST /api/post_status and POST /mcp. Below Hono (no web Request or
 * Response, no router, no middleware chain), which was most of what such a call cost.
 *
 * Only what the app would answer the same way is answered here: on the app's own host, not from a
 * foreign origin, with a bearer token that names an agent, a declared JSON body within the size
 * limit. Anything else — a session instead of a token, a bad token, a chunked or oversized body,
 * another content type — goes to the app untouched, which answers it (401, 413, 415 …) its own way.
 * A REST body that is not valid JSON or fails the route's schema goes to the app too, already read
 * (as a web Request): its error answers (400 INVALID_JSON, VALIDATION_ERROR …) stay the app's.
 * MCP's answers, errors included, are the same code's as at the app's /mcp (mcp-http.ts).
 */
export function agentRequests(
  deps: AppDeps,
  hosts: () => HostRules,
  fetch: Fetch,
  mcp: McpEndpoint,
  app: RequestListener,
): RequestListener {
  /** What could not be answered: a client that went away, or a failure past the error answers. */
  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown) => {
    if (!req.destroyed) deps.logger.error('agent request failed', { error });
    res.destroy();
  };

  const rest = async (path: RestPath, req: IncomingMessage, res: ServerResponse, rules: HostRules) => {
    const token = bearerToken(header(req, 'authorization'));
    // A token that names no agent, or a database that cannot say: the app answers (401, 500).
    const agent = token
      ? await resolveToken(deps.db, token, deps.now(), deps.credentialRecheckMs).catch(() => null)
      : null;
    if (!agent) return app(req, res);
    const body = await readBody(req);
    const text = utf8.decode(body);
    let json: unknown;
    try {
      json = text.trim() === '' || jsonNestsDeeperThan(text, MAX_JSON_DEPTH) ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    let answer: Promise<object> | null;
    try {
      answer = json === undefined ? null : REST_CALLS[path](deps, agent, json);
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (!answer) return appAnswers(fetch, req, res, body);
    let status = 200;
    let headers: Record<string, string> = {};
    let payload: object;
    try {
      payload = await answer;
    } catch (error) {
      ({ status, headers, body: payload } = errorAnswer(error, deps.logger, { method: 'POST', path }));
    }
    await writeAnswer(
      res,
      rules.baseDomain,
      status,
      { 'content-type': JSON_TYPE, ...headers },
      JSON.stringify(payload),
    );
  };

  return (req, res) => {
    const url = req.url;
    const isMcp = url === '/mcp';
    if (req.method !== 'POST' || !(isMcp || isRestPath(url))) return app(req, res);
    const rules = hosts();
    const host = req.headers.host;
    if (!host || !isOwnHost(host, rules)) return app(req, res);
    if (isMcp) {
      mcp
        .answer(nodeIncoming(req))
        .catch((error: unknown) => {
          // As the app's onError answers what its /mcp route throws (a database that cannot say).
          const failed = errorAnswer(error, deps.logger, { method: 'POST', path: '/mcp' });
          const headers = { 'content-type': JSON_TYPE, ...failed.headers };
          return { status: failed.status, headers, body: JSON.stringify(failed.body) };
        })
        .then((answer) => writeAnswer(res, rules.baseDomain, answer.status, answer.headers, answer.body))
        .catch((error: unknown) => fail(req, res, error));
      return;
    }
    const fetchSite = header(req, 'sec-fetch-site');
    const crossOrigin = isCrossOriginWrite({
      method: 'POST',
      origin: header(req, 'origin'),
      host,
      fetchSite,
    });
    const type = header(req, 'content-type')?.split(';')[0]?.trim().toLowerCase();
    const length = declaredLength(header(req, 'content-length'), header(req, 'transfer-encoding'));
    if (crossOrigin || type !== JSON_TYPE || length === null || length > MAX_BODY_BYTES) return app(req, res);
    rest(url as RestPath, req, res, rules).catch((error: unknown) => fail(req, res, error));
  };
}

/** A node request as the MCP endpoint reads it. */
function nodeIncoming(req: IncomingMessage) {
  return {
    method: req.method ?? 'POST',
    header: (name: string) => header(req, name),
    headers: () => req.headers as Record<string, string>,
    url: () => `${(req.socket as TLSSocket).encrypted ? 'https' : 'http'}://${req.headers.host}${req.url}`,
    text: (maxBytes: number) => readCapped(req, maxBytes),
  };
}

/**
 * The body as text, or null once it is larger than `maxBytes` (declared or received): the rest is
 * then read and dropped, so that the connection stays usable for the answer and the next request.
 */
function readCapped(req: IncomingMessage, maxBytes: number): Promise<string | null> {
  if (Number(header(req, 'content-length')) > maxBytes) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      if (over) return;
      received += chunk.length;
      if (received <= maxBytes) chunks.push(chunk);
      else {
        over = true;
        chunks.length = 0;
        resolve(null);
      }
    });
    req.on('end', () => {
      if (!over) resolve(utf8.decode(Buffer.concat(chunks)));
    });
    req.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('request aborted'));
    });
  });
}
