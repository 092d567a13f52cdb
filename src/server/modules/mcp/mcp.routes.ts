import { readRequestBody } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { Hono } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { mcpEndpointOf } from './mcp-http.js';

/**
 * MCP at /mcp (mcp-http.ts). The node server answers most POSTs below the app
 * (http/agent-requests.ts), with the same endpoint; this route answers what reaches the app.
 */
export function mcpRoutes(deps: AppDeps) {
  const endpoint = mcpEndpointOf(deps);
  return new Hono<AppEnv>().all('/', async (c) => {
    const answer = await endpoint.answer({
      method: c.req.method,
      header: (name) => c.req.header(name),
      headers: () => Object.fromEntries(c.req.raw.headers.entries()),
      url: () => c.req.url,
      text: async (maxBytes) => {
        const body = await readRequestBody(c.req.raw, maxBytes);
        return body.tooLarge ? null : body.text;
      },
    });
    if (answer.body === null) return c.body(null, answer.status as StatusCode, answer.headers);
    return c.body(answer.body, answer.status as ContentfulStatusCode, answer.headers);
  });
}
