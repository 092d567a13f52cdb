import { Hono } from 'hono';
import type { ApiErrorBody } from '@/contracts/errors.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { resolveToken } from '../coordination/tokens.js';
import { agentAuthInfo, coordinationMcpServer, McpServerPool } from './mcp-server.js';

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
 * MCP at /mcp: Streamable HTTP, stateless (a transport per request, a server no other request
 * holds, from a pool), JSON answers.
 * Agents only: `Authorization: Bearer <agent token>` (401 otherwise; a browser session is not
 * enough). The Host was checked by the app first; a foreign Origin is refused here (403).
 */
export function mcpRoutes(deps: AppDeps) {
  const servers = new McpServerPool(() => coordinationMcpServer(deps, deps.version));
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
    return servers.handle(c.req.raw, agentAuthInfo(agent, match?.[1] ?? ''));
  });
}
