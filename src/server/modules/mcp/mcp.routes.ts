import { Hono } from 'hono';
import type { ContentfulStatusCode, StatusCode } from 'hono/utils/http-status';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { mcpEndpointOf } from './mcp-http.js';

/**
 * A web request's body as text, or null once it is larger than `maxBytes` (declared or received):
 * a chunked body is read only that far.
 */
async function textUpTo(request: Request, maxBytes: number): Promise<string | null> {
  if (Number(request.headers.get('content-length')) > maxBytes) return null;
  if (!request.body) return '';
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of request.body) {
    received += chunk.byteLength;
    if (received > maxBytes) return null;
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

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
      headers: () => Object.fromEntries(c.req.raw.headers),
      url: () => c.req.url,
      text: (maxBytes) => textUpTo(c.req.raw, maxBytes),
    });
    if (answer.body === null) return c.body(null, answer.status as StatusCode, answer.headers);
    return c.body(answer.body, answer.status as ContentfulStatusCode, answer.headers);
  });
}
