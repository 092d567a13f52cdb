import { Hono } from 'hono';
import type { AppEnv } from '@/server/deps.js';
import { AppError } from '@/server/lib/errors.js';

/**
 * /.well-known/*: nothing is published there. An MCP client looks for OAuth discovery documents
 * before it connects (RFC 9728's oauth-protected-resource, RFC 8414's oauth-authorization-server,
 * OpenID's openid-configuration); /mcp takes an agent token as it is, with no OAuth. The app's JSON
 * 404 says so, where the web app's page would be read as a broken document.
 */
export function wellKnownRoutes() {
  return new Hono<AppEnv>().all('*', () => {
    throw new AppError(
      'NOT_FOUND',
      'Nothing is published under /.well-known (no OAuth: /mcp takes an agent token)',
    );
  });
}
