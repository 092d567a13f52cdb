import {
  type IsomorphicHeaders,
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
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

/**
 * Whether a Content-Type names JSON: its media type, parameters aside, as the SDK's transport reads
 * it (it also refuses a parameter section with a comma it cannot parse, which no client sends).
 */
const isJsonContentType = (type: string | undefined) =>
  type === 'application/json' || type?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';

/** The message of a body, or the SDK transport's answer to a body it refuses. */
function messageOf(text: string): { message: JSONRPCMessage } | { refused: HttpAnswer } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { refused: rpcError(400, -32700, 'Parse error: Invalid JSON') };
  }
  // Deviation: JSON-RPC batches left MCP in 2025-06-18, and the SDK's transport still takes them.
  if (Array.isArray(raw)) {
    return { refused: rpcError(400, -32600, 'Invalid Request: JSON-RPC batches are not supported') };
  }
  const parsed = JSONRPCMessageSchema.safeParse(raw);
  return parsed.success
    ? { message: parsed.data }
    : { refused: rpcError(400, -32700, 'Parse error: Invalid JSON-RPC message') };
}

/**
 * MCP at /mcp: Streamable HTTP, stateless, JSON answers, on the official SDK's `McpServer`
 * (mcp-server.ts). Before the protocol, as the app's routes are guarded: a foreign Origin is 403
 * (the Host was checked before: the app's hostCheck, or agent-requests.ts), and agents only,
 * `Authorization: Bearer <agent token>` (401 otherwise; a browser session is not enough), handed to
 * the tools as the transport's `authInfo`.
 *
 * Then the HTTP rules of the SDK's `WebStandardStreamableHTTPServerTransport` in stateless JSON
 * mode, in its order and its words: Accept (406), Content-Type (415), the body's size (413), JSON
 * and JSON-RPC (400), the MCP-Protocol-Version header but on `initialize` (400), a notification or
 * a response alone (202). They are ours because its transport is not (json-transport.ts says why);
 * mcp-http.test.ts holds every answer to the transport's. Deviations from it:
 *
 * - GET and DELETE answer 405, as the SDK's stateless example answers them: there is no stream to
 *   open (a stateless server sends nothing but answers) and no session to end.
 * - A JSON array is refused (400, -32600): JSON-RPC batches were removed from MCP in 2025-06-18.
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
    const accept = incoming.header('accept');
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return rpcError(
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
    }
    if (!isJsonContentType(incoming.header('content-type'))) {
      return rpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
    }
    const text = await incoming.text(MAX_MCP_BODY_BYTES);
    if (text === null) {
      return rpcError(
        413,
        -32000,
        `Payload Too Large: Request body must not exceed ${MAX_MCP_BODY_BYTES} bytes`,
      );
    }
    const read = messageOf(text);
    if ('refused' in read) return read.refused;
    const { message } = read;
    const version = incoming.header('mcp-protocol-version');
    if (
      version !== undefined &&
      !SUPPORTED_PROTOCOL_VERSIONS.includes(version) &&
      // Asked only of a message that says it is one: the schema costs more than the rest.
      !('method' in message && message.method === 'initialize' && isInitializeRequest(message))
    ) {
      return rpcError(
        400,
        -32000,
        `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
      );
    }
    // The URL only when a tool asks for it: ours never do, and parsing one per call is not free.
    const requestInfo = {
      headers: incoming.headers(),
      get url() {
        return new URL(incoming.url());
      },
    };
    const answer = await this.#servers.exchange(message, {
      authInfo: agentAuthInfo(agent, token),
      requestInfo,
    });
    return answer === null
      ? { status: 202, headers: {}, body: null }
      : { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(answer) };
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
