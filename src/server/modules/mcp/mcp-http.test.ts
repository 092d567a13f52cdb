import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLockStore } from '../coordination/memory-lock-store.js';
import { fx, newAgent, useCoordinationApp } from '../coordination/testing/fixture.js';
import { resolveToken } from '../coordination/tokens.js';
import { MAX_MCP_BODY_BYTES } from './mcp-http.js';
import { agentAuthInfo, coordinationMcpServer } from './mcp-server.js';

interface Sent {
  headers?: Record<string, string>;
  body: string;
}

interface Answered {
  status: number;
  type: string | null;
  body: unknown;
}

const read = async (res: Response): Promise<Answered> => {
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: text ? JSON.parse(text) : null };
};

const rpc = (method: string, params?: object, id: number | string = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });

/**
 * /mcp against the SDK's own way, its Hono example: a new McpServer (ours, with its tools) and a new
 * WebStandardStreamableHTTPServerTransport per request, the web request handed over as it came.
 * Every answer is the same — our transport (json-transport.ts) and HTTP rules (mcp-http.ts) answer
 * as the SDK's — but for the deviations mcp-http.ts and mcp-server.ts list.
 */
describe('/mcp, held to the SDK’s own transport and McpServer', () => {
  useCoordinationApp(createMemoryLockStore);
  let token: string;
  let authInfo: ReturnType<typeof agentAuthInfo>;

  beforeAll(async () => {
    const agent = await newAgent('mcp-reference');
    token = agent.token;
    const resolved = await resolveToken(fx.t.deps.db, token, fx.t.deps.now(), fx.t.deps.credentialRecheckMs);
    if (!resolved) throw new Error('no agent');
    authInfo = agentAuthInfo(resolved, token);
  });

  const headersOf = (sent: Sent) => ({
    host: 'localhost',
    authorization: `Bearer ${token}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...sent.headers,
  });

  const ours = async (sent: Sent) =>
    read(
      await fx.t.app.request('http://localhost/mcp', {
        method: 'POST',
        headers: headersOf(sent),
        body: sent.body,
      }),
    );

  async function sdks(sent: Sent) {
    const server = coordinationMcpServer(fx.t.deps, fx.t.deps.version);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_MCP_BODY_BYTES,
    });
    await server.connect(transport);
    const request = new Request('http://localhost/mcp', {
      method: 'POST',
      headers: headersOf(sent),
      body: sent.body,
    });
    try {
      return await read(await transport.handleRequest(request, { authInfo }));
    } finally {
      await server.close();
    }
  }

  it('answers as the SDK does: the protocol, the tools, and every request the transport refuses', async () => {
    const args = { repo_url: fx.cloneUrl, branch: 'main', file_paths: ['src/app.ts'] };
    const writing = { ...args, status: 'WRITING', message: 'Edit the app.' };
    const cases: Record<string, Sent> = {
      initialize: {
        body: rpc('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'test', version: '1' },
        }),
      },
      'initialize, a version the server does not speak': {
        body: rpc('initialize', {
          protocolVersion: '1999-01-01',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        }),
      },
      'a notification alone': {
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      },
      'a response alone': { body: JSON.stringify({ jsonrpc: '2.0', id: 9, result: {} }) },
      ping: { body: rpc('ping') },
      'tools/list': { body: rpc('tools/list', {}, 'list') },
      'tools/call check_status': { body: rpc('tools/call', { name: 'check_status', arguments: args }) },
      'tools/call, a rule refuses (REPO_NOT_FOUND)': {
        body: rpc('tools/call', {
          name: 'check_status',
          arguments: { ...args, repo_url: 'https://github.com/nobody/nothing.git' },
        }),
      },
      'tools/call, arguments the schema refuses (a tool error)': {
        body: rpc('tools/call', { name: 'post_status', arguments: { ...writing, message: '  ' } }),
      },
      'tools/call, arguments that are no object (a protocol error)': {
        body: rpc('tools/call', { name: 'post_status', arguments: [] }),
      },
      'tools/call without a name': { body: rpc('tools/call', { arguments: args }) },
      'an unknown method': { body: rpc('resources/list') },
      'a body that is not JSON': { body: '{"jsonrpc":"2.0"' },
      'an empty body': { body: '' },
      'JSON that is no JSON-RPC message': { body: '{"jsonrpc":"1.0","id":1}' },
      'JSON null': { body: 'null' },
      'an Accept without text/event-stream': {
        headers: { accept: 'application/json' },
        body: rpc('tools/list'),
      },
      'a body that is not JSON, and an Accept without application/json': {
        headers: { accept: 'text/event-stream' },
        body: 'not json',
      },
      'a Content-Type that is not JSON': {
        headers: { 'content-type': 'text/plain' },
        body: rpc('tools/list'),
      },
      'an unsupported MCP-Protocol-Version': {
        headers: { 'mcp-protocol-version': '1999-01-01' },
        body: rpc('tools/list'),
      },
      'a supported MCP-Protocol-Version': {
        headers: { 'mcp-protocol-version': '2025-06-18' },
        body: rpc('tools/list'),
      },
      'a Content-Type with parameters, in capitals': {
        headers: { 'content-type': 'Application/JSON; charset=utf-8' },
        body: rpc('tools/list'),
      },
      'initialize, with an unsupported MCP-Protocol-Version': {
        headers: { 'mcp-protocol-version': '1999-01-01' },
        body: rpc('initialize', {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        }),
      },
      'an initialize that is no InitializeRequest, with an unsupported MCP-Protocol-Version': {
        headers: { 'mcp-protocol-version': '1999-01-01' },
        body: rpc('initialize', { capabilities: {} }),
      },
      'an id that is null': { body: JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }) },
      'params with _meta': { body: rpc('tools/list', { _meta: { progressToken: 1 } }) },
      'a batch, and an Accept without text/event-stream': {
        headers: { accept: 'application/json' },
        body: `[${rpc('tools/list')}]`,
      },
      'a batch, and a Content-Type that is not JSON': {
        headers: { 'content-type': 'text/plain' },
        body: `[${rpc('tools/list')}]`,
      },
      'a body over 1 MiB, and a Content-Type that is not JSON': {
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(MAX_MCP_BODY_BYTES + 1),
      },
      'a body over 1 MiB': {
        body: rpc('tools/call', {
          name: 'check_status',
          arguments: { ...args, pad: 'x'.repeat(MAX_MCP_BODY_BYTES) },
        }),
      },
    };
    for (const [name, sent] of Object.entries(cases)) {
      const expected = await sdks(sent);
      expect(await ours(sent), name).toEqual(expected);
    }
    // Not vacuous: the cases cover answers, tool errors, protocol errors and refusals.
    const statuses = await Promise.all(Object.values(cases).map(async (sent) => (await sdks(sent)).status));
    expect(new Set(statuses)).toEqual(new Set([200, 202, 400, 406, 413, 415]));
  });

  it('deviates where the specification says otherwise: an unknown tool is a JSON-RPC error', async () => {
    const sent = { body: rpc('tools/call', { name: 'no_such_tool', arguments: {} }, 7) };
    // McpServer (SDK 1.32) answers a tool result with isError…
    expect(await sdks(sent)).toMatchObject({ status: 200, body: { id: 7, result: { isError: true } } });
    // …where the specification (Tools → Error Handling) lists unknown tools among protocol errors.
    expect(await ours(sent)).toEqual({
      status: 200,
      type: 'application/json',
      body: { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'Unknown tool: no_such_tool' } },
    });
  });

  it('deviates where the specification says otherwise: a JSON-RPC batch is refused (removed in 2025-06-18)', async () => {
    const refused = {
      status: 400,
      type: 'application/json',
      body: {
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported' },
        id: null,
      },
    };
    const batch = { body: `[${rpc('tools/list', {}, 1)},${rpc('ping', undefined, 2)}]` };
    // The SDK's transport answers both…
    expect(await sdks(batch)).toMatchObject({ status: 200, body: [{ id: 1 }, { id: 2 }] });
    // …we answer neither, whatever the array holds.
    for (const body of [
      batch.body,
      `[${rpc('tools/list')}]`,
      '[]',
      `[${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}]`,
    ]) {
      expect(await ours({ body }), body).toEqual(refused);
    }
  });
});
