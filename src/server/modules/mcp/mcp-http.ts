import type { IsomorphicHeaders } from '@modelcontextprotocol/sdk/types.js';
import type { ApiErrorBody } from '@/contracts/errors.js';
import { bearerToken } from '@/server/lib/bearer.js';
import type { CoordinationDeps } from '../coordination/coordination.js';
import { resolveToken } from '../coordination/tokens.js';
import { agentAuthInfo, coordinationMcpServer, McpServerPool } from './mcp-server.js';

/** The largest JSON-RPC message accepted (a post of 1,000 paths fits many times over). */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

/** What /mcp needs of the app (McpDeps satisfies it). */
export interface McpDeps extends CoordinationDeps {
  version: string;
  /** How long a token found in the database is trusted (`credentialRecheckFor`). */
  credentialRecheckMs: number | null;
}

/** An HTTP request to /mcp, as the app's route (a web Request) or the node server (agent-requests.ts) has it. */
export interface McpIncoming {
  method: string;
  header(name: string): string | undefined;
  /** Every header, for the SDK's transport (and so the tools' `requestInfo`). */
  headers(): IsomorphicHeaders;
  url(): string;
  /** The body as text; null when it is larger than `maxBytes`. */
  text(maxBytes: number): Promise<string | null>;
}

/** What /mcp answers: the caller adds the app's security headers. */
export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

const json = (status: number, body: object, headers: Record<string, string> = {}): HttpAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** A JSON-RPC error without an id, as the SDK's transport answers a request it refuses. */
const rpcError = (status: number, code: number, message: string, headers: Record<string, string> = {}) =>
  json(status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);

/** An Origin, when a browser sends one, must be this server's own (the Host, already checked). */
function foreignOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return false;
  try {
    return !host || new URL(origin).host.toLowerCase() !== host.toLowerCase();
  } catch {
    return true; // "null" or garbage
  }
}

/** The body as JSON, or undefined when it is not JSON (the SDK's transport then judges it). */
function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * MCP at /mcp: Streamable HTTP, stateless, JSON answers, by the official SDK's own transport for
 * web requests (`WebStandardStreamableHTTPServerTransport`) and `McpServer` (mcp-server.ts). Before
 * the transport, as the app's routes are guarded: a foreign Origin is 403 (the Host was checked
 * before: the app's hostCheck, or agent-requests.ts), and agents only, `Authorization: Bearer <agent
 * token>` (401 otherwise; a browser session is not enough), handed to the tools as the transport's
 * `authInfo`. Then what the transport does not do, each a deviation from it:
 *
 * - GET and DELETE answer 405, as the SDK's stateless example answers them: there is no stream to
 *   open (a stateless server sends nothing but answers) and no session to end.
 * - The body is read here, within 1 MiB (413), and handed to the transport as `parsedBody`: a
 *   JSON array is refused first (400, -32600) — JSON-RPC batches were removed from MCP in
 *   2025-06-18, and the SDK's transport still takes them. Every other body, JSON or not, is the
 *   transport's to judge. mcp-http.test.ts holds every answer to the SDK's own.
 */
export class McpEndpoint {
  readonly #servers: McpServerPool;

  constructor(private readonly deps: McpDeps) {
    this.#servers = new McpServerPool(() => coordinationMcpServer(deps, deps.version));
  }

  async answer(incoming: McpIncoming): Promise<HttpAnswer> {
    if (foreignOrigin(incoming.header('origin'), incoming.header('host'))) {
      return json(403, {
        error: 'FORBIDDEN_ORIGIN',
        message: 'Cross-origin request refused',
      } satisfies ApiErrorBody);
    }
    const token = bearerToken(incoming.header('authorization'));
    const agent = token
      ? await resolveToken(this.deps.db, token, this.deps.now(), this.deps.credentialRecheckMs)
      : null;
    if (!token || !agent) {
      return json(
        401,
        {
          error: 'UNAUTHORIZED',
          message: 'Send Authorization: Bearer <agent token> (Settings → Agent tokens)',
        } satisfies ApiErrorBody,
        { 'WWW-Authenticate': 'Bearer realm="autocoder"' },
      );
    }
    if (incoming.method !== 'POST') {
      return rpcError(405, -32000, 'Method not allowed: POST only', { Allow: 'POST' });
    }
    const text = await incoming.text(MAX_MCP_BODY_BYTES);
    if (text === null) {
      return rpcError(
        413,
        -32000,
        `Payload Too Large: Request body must not exceed ${MAX_MCP_BODY_BYTES} bytes`,
      );
    }
    const parsedBody = parsedOrUndefined(text);
    if (Array.isArray(parsedBody)) {
      return rpcError(400, -32600, 'Invalid Request: JSON-RPC batches are not supported');
    }
    const request = new Request(incoming.url(), {
      method: 'POST',
      headers: incoming.headers() as HeadersInit,
      // Not JSON: the transport reads it again, to answer as it answers such a body.
      body: parsedBody === undefined ? text : null,
    });
    const response = await this.#servers.handle(request, {
      authInfo: agentAuthInfo(agent, token),
      parsedBody,
    });
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: response.body === null ? null : await response.text(),
    };
  }
}

const endpoints = new WeakMap<McpDeps, McpEndpoint>();

/** The app's /mcp endpoint: one per app, shared by its route and the node server's fast path. */
export function mcpEndpointOf(deps: McpDeps): McpEndpoint {
  let endpoint = endpoints.get(deps);
  if (!endpoint) {
    endpoint = new McpEndpoint(deps);
    endpoints.set(deps, endpoint);
  }
  return endpoint;
}
