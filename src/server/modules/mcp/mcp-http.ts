import { MAX_BATCH_SIZE, requestBodyTooLargeMessage } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  type IsomorphicHeaders,
  isInitializeRequest,
  type JSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { ApiErrorBody } from '@/contracts/errors.js';
import { bearerToken } from '@/server/lib/bearer.js';
import type { CoordinationDeps } from '../coordination/coordination.js';
import { resolveToken } from '../coordination/tokens.js';
import { jsonRpcMessageOf } from './json-transport.js';
import { agentAuthInfo, coordinationMcpServer, MAX_MCP_BODY_BYTES, McpServerPool } from './mcp-server.js';

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
  /** Every header, for the tools' `requestInfo`. */
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

const JSON_HEADERS = { 'content-type': 'application/json' };

const json = (status: number, body: object, headers: Record<string, string> = {}): HttpAnswer => ({
  status,
  headers: { ...JSON_HEADERS, ...headers },
  body: JSON.stringify(body),
});

/** A JSON-RPC error without an id, as the SDK's transport answers a request it refuses. */
const rpcError = (status: number, code: number, message: string, data?: string) =>
  json(status, {
    jsonrpc: '2.0',
    error: { code, message, ...(data !== undefined ? { data } : {}) },
    id: null,
  });

/** An Origin, when a browser sends one, must be this server's own (the Host, already checked). */
function foreignOrigin(origin: string | undefined, host: string | undefined): boolean {
  if (origin === undefined) return false;
  try {
    return !host || new URL(origin).host.toLowerCase() !== host.toLowerCase();
  } catch {
    return true; // "null" or garbage
  }
}

/** `initialize`, as the SDK's transport tells it (its schema), asked only of messages that say so. */
const isInitialize = (message: JSONRPCMessage) =>
  'method' in message && message.method === 'initialize' && isInitializeRequest(message);

/**
 * MCP at /mcp: Streamable HTTP, stateless, JSON answers, on servers of the official SDK
 * (`McpServer`, mcp-server.ts) from a pool. Agents only: `Authorization: Bearer <agent token>` (401
 * otherwise; a browser session is not enough). The Host is checked before (the app's hostCheck, or
 * agent-requests.ts); a foreign Origin is refused here (403). GET and DELETE answer 405: there is
 * no stream to open and no session to end. A POST follows the SDK's
 * `WebStandardStreamableHTTPServerTransport` in stateless JSON mode, answer for answer: Accept
 * (406), Content-Type (415), body size (413), JSON and JSON-RPC parsing (400), one `initialize`
 * alone, the MCP-Protocol-Version header (400 when unsupported), notifications alone 202.
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
      return json(
        405,
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST only' }, id: null },
        { Allow: 'POST' },
      );
    }
    return this.#post(incoming, agentAuthInfo(agent, token));
  }

  async #post(incoming: McpIncoming, authInfo: ReturnType<typeof agentAuthInfo>): Promise<HttpAnswer> {
    const accept = incoming.header('accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return rpcError(
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    if (!isJsonContentType(incoming.header('content-type') ?? null)) {
      return rpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    let raw: unknown;
    try {
      const text = await incoming.text(MAX_MCP_BODY_BYTES);
      if (text === null) return rpcError(413, -32000, requestBodyTooLargeMessage(MAX_MCP_BODY_BYTES));
      raw = JSON.parse(text);
    } catch {
      return rpcError(400, -32700, 'Parse error: Invalid JSON');
    }
    if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
      return rpcError(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
    }
    let messages: JSONRPCMessage[];
    try {
      messages = (Array.isArray(raw) ? raw : [raw]).map(jsonRpcMessageOf);
    } catch {
      return rpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
    }
    if (messages.some(isInitialize)) {
      if (messages.length > 1) {
        return rpcError(400, -32600, 'Invalid Request: Only one initialization request is allowed');
      }
    } else {
      const version = incoming.header('mcp-protocol-version');
      if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return rpcError(
          400,
          -32000,
          `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
        );
      }
    }
    try {
      // The URL only when a tool asks for it: ours never do, and parsing one per call is not free.
      const requestInfo = {
        headers: incoming.headers(),
        get url() {
          return new URL(incoming.url());
        },
      };
      const answers = await this.#servers.exchange(messages, { authInfo, requestInfo });
      if (answers.length === 0) return { status: 202, headers: {}, body: null };
      return {
        status: 200,
        headers: JSON_HEADERS,
        body: JSON.stringify(answers.length === 1 ? answers[0] : answers),
      };
    } catch (error) {
      return rpcError(400, -32700, 'Parse error', String(error));
    }
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
