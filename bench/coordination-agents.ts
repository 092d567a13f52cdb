// The agents of the coordination bench (bench/coordination.ts): each with its own token, over REST
// (a keep-alive connection each) or MCP (the official SDK's client, streamable HTTP). How they are
// driven (closed loop, fixed rate) is bench/coordination-load.ts.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import type { CheckStatusResponse, PostStatusResponse } from '../src/contracts/coordination.js';
import { RawHttpConnection } from './lib/raw-http.js';

/** One agent's two calls, whatever the transport. */
export interface AgentCalls {
  check(body: Record<string, unknown>): Promise<CheckStatusResponse>;
  post(body: Record<string, unknown>): Promise<PostStatusResponse>;
  close(): Promise<void>;
}

/** An agent over REST: its own keep-alive connection (a bare socket, lib/raw-http.ts), as an agent process would have. */
export function restAgent(port: number, token: string): AgentCalls {
  const connection = new RawHttpConnection(port);
  const headers = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json',
  };
  const call = async <T>(route: string, body: Record<string, unknown>) => {
    const res = await connection.request('POST', route, headers, JSON.stringify(body));
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    return JSON.parse(res.body.toString('utf8')) as T;
  };
  return {
    check: (body) => call<CheckStatusResponse>('/api/check_status', body),
    post: (body) => call<PostStatusResponse>('/api/post_status', body),
    close: async () => connection.close(),
  };
}

/**
 * An agent over MCP as the wire has it: one keep-alive connection (a bare socket), `initialize` and
 * `notifications/initialized` once, then each call one `tools/call` POST to `/mcp` with the headers
 * the SDK's client sends (`Accept` of both types, `Mcp-Protocol-Version` as negotiated). The SDK's
 * own client (`mcpAgent`, `BENCH_COORD_MCP_CLIENT=sdk`) spends more CPU per call than the server's
 * answer does; here that was CPU the server waited for.
 */
export async function mcpWireAgent(port: number, token: string, name: string): Promise<AgentCalls> {
  const connection = new RawHttpConnection(port);
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let id = 0;
  const post = async (message: Record<string, unknown>) => {
    const res = await connection.request(
      'POST',
      '/mcp',
      headers,
      JSON.stringify({ jsonrpc: '2.0', ...message }),
    );
    if (res.status !== 200 && res.status !== 202) {
      throw new Error(`HTTP ${res.status}: ${res.body.toString('utf8').slice(0, 200)}`);
    }
    return res.status === 202
      ? null
      : (JSON.parse(res.body.toString('utf8')) as { result?: unknown; error?: unknown });
  };
  const init = await post({
    id: ++id,
    method: 'initialize',
    params: {
      protocolVersion: LATEST_PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name, version: '1.0.0' },
    },
  });
  const negotiated = (init?.result as { protocolVersion?: string } | undefined)?.protocolVersion;
  if (!negotiated) throw new Error(`initialize failed: ${JSON.stringify(init).slice(0, 200)}`);
  headers['mcp-protocol-version'] = negotiated;
  await post({ method: 'notifications/initialized' });
  const call = async <T>(tool: string, body: Record<string, unknown>) => {
    const answer = await post({ id: ++id, method: 'tools/call', params: { name: tool, arguments: body } });
    const result = answer?.result as
      | { isError?: boolean; content?: unknown; structuredContent?: T }
      | undefined;
    if (!result || result.isError || !result.structuredContent) {
      throw new Error(`tool error: ${JSON.stringify(answer).slice(0, 200)}`);
    }
    return result.structuredContent;
  };
  return {
    check: (body) => call<CheckStatusResponse>('check_status', body),
    post: (body) => call<PostStatusResponse>('post_status', body),
    close: async () => connection.close(),
  };
}

/** An agent over MCP through the official SDK's client (streamable HTTP), as Claude Code connects. */
export async function mcpAgent(port: number, token: string, name: string): Promise<AgentCalls> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  const call = async <T>(tool: string, body: Record<string, unknown>) => {
    const result = await client.callTool({ name: tool, arguments: body });
    if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content).slice(0, 200)}`);
    return result.structuredContent as T;
  };
  return {
    check: (body) => call<CheckStatusResponse>('check_status', body),
    post: (body) => call<PostStatusResponse>('post_status', body),
    close: () => client.close(),
  };
}
