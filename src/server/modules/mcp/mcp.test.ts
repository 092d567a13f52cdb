import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveAsMain } from '@/server/http/testing/served-app.js';
import type { TestApp } from '@/server/testing/test-app.js';
import { createMemoryLockStore } from '../coordination/memory-lock-store.js';
import { branchHead, fx, newAgent, useCoordinationApp } from '../coordination/testing/fixture.js';
import { serveOnSocket } from '../events/testing/sse-client.js';

const memoryStore = createMemoryLockStore;

/** The app served by Hono's node server alone, and as main.ts serves it (POSTs answered below Hono). */
const servers = [
  ['the app’s route', (t: TestApp) => serveOnSocket(t.app)],
  ['the node server', (t: TestApp) => serveAsMain(t)],
] as const;

/** MCP at /mcp over a real socket, with the SDK's own client (issue 9 item 3). */
describe.each(servers)('MCP at /mcp, answered by %s', (_name, serve) => {
  useCoordinationApp(memoryStore);
  let server: { url: string; close(): Promise<void> };
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await serve(fx.t);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await server.close();
  });

  async function connect(token: string, headers: Record<string, string> = {}) {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  /** A raw JSON-RPC post, as a client that does not use the SDK would send it. */
  const rawPost = (
    headers: Record<string, string>,
    body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  ) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  it('lists check_status and post_status, each with an input and an output schema', async () => {
    const agent = await newAgent('mcp-lister');
    const client = await connect(agent.token);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['check_status', 'post_status']);
    for (const tool of tools) {
      expect(tool.inputSchema.properties).toHaveProperty('repo_url');
      expect(tool.inputSchema.properties).toHaveProperty('file_paths');
      expect(tool.outputSchema?.properties).toHaveProperty('orchestration');
    }
    const post = tools.find((tool) => tool.name === 'post_status');
    expect(post?.inputSchema.required).toEqual(expect.arrayContaining(['message', 'status']));
  });

  it('answers both tools with structuredContent equal to the REST answer', async () => {
    const mcpAgent = await newAgent('mcp-writer');
    const restAgent = await newAgent('rest-reader');
    const client = await connect(mcpAgent.token);
    const head = await branchHead();
    const args = { repo_url: fx.cloneUrl, branch: 'main' };

    const took = await client.callTool({
      name: 'post_status',
      arguments: { ...args, file_paths: ['src/db.ts'], status: 'WRITING', message: 'Add a pool to the db.' },
    });
    expect(took.isError).toBeFalsy();
    expect(took.structuredContent).toMatchObject({ success: true, orchestration: { action: 'PROCEED' } });

    // The REST agent sees the MCP agent's lock; the MCP agent's check equals REST's for the same caller.
    const rest = await restAgent.check(['src/auth.ts'], { agent_head: head });
    expect(rest.body.status).toBe('CONFLICT');
    expect(rest.body.locks['src/db.ts']).toMatchObject({ user: mcpAgent.id, lock_type: 'NEIGHBOR' });
    const viaMcp = await connect(restAgent.token);
    const checked = await viaMcp.callTool({
      name: 'check_status',
      arguments: { ...args, file_paths: ['src/auth.ts'], agent_head: head },
    });
    expect(checked.structuredContent).toEqual(rest.body);
    expect(JSON.parse((checked.content as { text: string }[])[0]?.text ?? '')).toEqual(rest.body);

    // The same refusal both ways: WAIT, naming the holder.
    const refusedRest = await restAgent.post(['src/db.ts'], 'WRITING', 'Rename the db.');
    const refusedMcp = await viaMcp.callTool({
      name: 'post_status',
      arguments: { ...args, file_paths: ['src/db.ts'], status: 'WRITING', message: 'Rename the db.' },
    });
    expect(refusedMcp.structuredContent).toEqual(refusedRest.body);
    expect(refusedRest.body.orchestration.action).toBe('WAIT');

    // Release over MCP: OPEN with the head the server has.
    const opened = await client.callTool({
      name: 'post_status',
      arguments: {
        ...args,
        file_paths: ['src/db.ts'],
        status: 'OPEN',
        message: 'Done.',
        new_repo_head: head,
      },
    });
    expect(opened.structuredContent).toMatchObject({
      success: true,
      orchestration: { action: 'PROCEED' },
      orphaned_dependencies: ['src/auth.ts'],
    });
    expect((await restAgent.check(['src/auth.ts'])).body.status).toBe('OK');
  });

  it('answers each agent as itself when their calls share the pooled servers', async () => {
    const writer = await newAgent('mcp-pool-writer');
    const reader = await newAgent('mcp-pool-reader');
    const [asWriter, asReader] = [await connect(writer.token), await connect(reader.token)];
    const args = { repo_url: fx.cloneUrl, branch: 'main', file_paths: ['src/other.ts'] };
    const took = await asWriter.callTool({
      name: 'post_status',
      arguments: { ...args, status: 'WRITING', message: 'Pool test.' },
    });
    expect(took.structuredContent).toMatchObject({ success: true });
    // Interleaved: a server that answered one agent answers the other next.
    const check = (client: Client) => client.callTool({ name: 'check_status', arguments: args });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => check(i % 2 === 0 ? asWriter : asReader)),
    );
    answers.forEach((answer, i) => {
      const body = answer.structuredContent as { status: string; orchestration: { metadata?: unknown } };
      if (i % 2 === 0) expect(body.status, `writer's call ${i}`).toBe('OK');
      else {
        expect(body.status, `reader's call ${i}`).toBe('CONFLICT');
        expect(body.orchestration.metadata).toMatchObject({ lock_owner: writer.id });
      }
    });
    const released = await asWriter.callTool({
      name: 'post_status',
      arguments: { ...args, status: 'OPEN', message: 'Done.', new_repo_head: await branchHead() },
    });
    expect(released.structuredContent).toMatchObject({ success: true });
  });

  it('answers a rule’s refusal as a tool error with REST’s error body', async () => {
    const agent = await newAgent('mcp-lost');
    const client = await connect(agent.token);
    const unknown = await client.callTool({
      name: 'check_status',
      arguments: { repo_url: 'https://github.com/nobody/nothing.git', branch: 'main', file_paths: [] },
    });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse((unknown.content as { text: string }[])[0]?.text ?? '')).toMatchObject({
      error: 'REPO_NOT_FOUND',
    });
    const blank = await client.callTool({
      name: 'post_status',
      arguments: {
        repo_url: fx.cloneUrl,
        branch: 'main',
        file_paths: ['a.ts'],
        status: 'WRITING',
        message: '  ',
      },
    });
    expect(blank.isError).toBe(true);
  });

  it('answers a call of a tool that does not exist with JSON-RPC error -32602, as the specification says', async () => {
    const agent = await newAgent('mcp-unknown-tool');
    const client = await connect(agent.token);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: no_such_tool'),
    });
    const res = await rawPost(
      { authorization: `Bearer ${agent.token}` },
      { jsonrpc: '2.0', id: 'u1', method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: 'u1',
      error: { code: -32602, message: 'Unknown tool: no_such_tool' },
    });
    // The tools that exist still answer on the same servers.
    const listed = await client.listTools();
    expect(listed.tools).toHaveLength(2);
  });

  it('refuses a JSON-RPC batch with -32600 Invalid Request (batches left MCP in 2025-06-18)', async () => {
    const agent = await newAgent('mcp-batch');
    const auth = { authorization: `Bearer ${agent.token}` };
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    for (const batch of [[list, { ...list, id: 2 }], [list], []]) {
      const res = await rawPost(auth, batch);
      expect(res.status, JSON.stringify(batch)).toBe(400);
      expect(await res.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32600, message: 'Invalid Request: JSON-RPC batches are not supported' },
        id: null,
      });
    }
  });

  it('is stateless: no session id, and GET or DELETE answer 405', async () => {
    const agent = await newAgent('mcp-stateless');
    const auth = { authorization: `Bearer ${agent.token}` };
    const listed = await rawPost(auth);
    expect(listed.headers.get('mcp-session-id')).toBeNull();
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { ...auth, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  it('answers 401 without a token, with a bad one, and to a browser session alone', async () => {
    expect((await rawPost({})).status).toBe(401);
    expect((await rawPost({ authorization: 'Bearer acat_not-a-token' })).status).toBe(401);
    expect((await rawPost({ cookie: fx.owner.cookie })).status).toBe(401);
    const res = await rawPost({});
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await expect(connect('acat_wrong')).rejects.toThrow();
  });

  it('refuses a foreign Origin and a foreign Host (DNS rebinding)', async () => {
    const agent = await newAgent('mcp-origin');
    const auth = { authorization: `Bearer ${agent.token}` };
    expect((await rawPost(auth)).status).toBe(200);
    expect((await rawPost({ ...auth, origin: server.url })).status).toBe(200);
    expect((await rawPost({ ...auth, origin: 'http://evil.example' })).status).toBe(403);
    expect((await rawPost({ ...auth, origin: 'null' })).status).toBe(403);
    await expect(connect(agent.token, { origin: 'http://evil.example' })).rejects.toThrow();
    // The Host check runs before /mcp: a rebinding name never reaches it.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        `${server.url}/mcp`,
        { method: 'POST', headers: { host: 'evil.example', ...auth, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
    expect(status).toBe(421);
  });
});
