import { createServer, type Server } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { AppDeps } from '../deps.js';
import { mcpEndpointOf } from '../modules/mcp/mcp-http.js';
import { agentRequests } from './agent-requests.js';
import { boardRequests } from './board-requests.js';
import type { HostRules } from './host-check.js';
import { serviceRequests } from './service-requests.js';
import { serviceUpgrades } from './service-upgrades.js';

type Fetch = Parameters<typeof getRequestListener>[0];

/**
 * The app's node HTTP server (not yet listening): the board's list and agents' calls
 * (check_status, post_status, MCP) are answered below the app when everything they need checks
 * out, services' requests and WebSockets go straight to the service proxy once they pass its
 * checks; everything else is the app's (`fetch`).
 */
export function createAppServer(
  deps: AppDeps,
  fetch: Fetch,
  hosts: () => HostRules,
  options: { hostname?: string } = {},
): Server {
  const app = getRequestListener(fetch, options.hostname ? { hostname: options.hostname } : {});
  const server = createServer(
    boardRequests(
      deps,
      hosts,
      agentRequests(deps, hosts, fetch, mcpEndpointOf(deps), serviceRequests(deps, hosts, app)),
    ),
  );
  server.on('upgrade', serviceUpgrades(deps, hosts));
  return server;
}
