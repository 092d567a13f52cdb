import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import type { ApiErrorBody } from '@/contracts/errors.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { resolveToken } from '../coordination/tokens.js';
import { coordinationMcpServer } from './mcp-server.js';

/** The largest JSON-RPC message accepted (a post of 1,000 paths fits many times over). */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

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
 * MCP at /mcp: Streamable HTTP, stateless (a server and a transport per request), JSON answers.
 * Agents only: `Authorization: Bearer <agent token>` (401 otherwise; a browser session is not
 * enough). The Host was checked by the app first; a foreign Origin is refused here (403).
 */
export function mcpRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().all('/', async (c) => {
    if (foreignOrigin(c.req.header('origin'), c.req.header('host'))) {
      return c.json<ApiErrorBody>(
        { error: 'FORBIDDEN_ORIGIN', message: 'Cross-origin request refused' },
        403,
      );
    }
    const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
    const agent = match?.[1] ? await resolveToken(deps.db, match[1], deps.now()) : null;
    if (!agent) {
      return c.json<ApiErrorBody>(
        {
          error: 'UNAUTHORIZED',
          message: 'Send Authorization: Bearer <agent token> (Settings → Agent tokens)',
        },
        401,
        { 'WWW-Authenticate': 'Bearer realm="autocoder"' },
      );
    }
    // Stateless: no server-initiated stream to open (GET) and no session to end (DELETE).
    if (c.req.method !== 'POST') {
      return c.json(
        { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: POST only' }, id: null },
        405,
        { Allow: 'POST' },
      );
    }
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
    });
    const server = coordinationMcpServer(deps, agent, deps.version);
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      // JSON mode answers once everything is handled: nothing of this request is left to stream.
      await server.close();
    }
  });
}
