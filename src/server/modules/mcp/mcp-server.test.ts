import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMemoryLockStore } from '../coordination/memory-lock-store.js';
import { fx, newAgent, useCoordinationApp } from '../coordination/testing/fixture.js';
import { resolveToken } from '../coordination/tokens.js';
import { agentAuthInfo, coordinationMcpServer, McpServerPool } from './mcp-server.js';

/** The pool's deviation from the SDK's example (servers reused, not built per request) is safe. */
describe('McpServerPool', () => {
  useCoordinationApp(createMemoryLockStore);

  it('answers each request on one reused server, for whichever agent sent it', async () => {
    let built = 0;
    const pool = new McpServerPool(() => {
      built += 1;
      return coordinationMcpServer(fx.t.deps, 'test');
    });
    const authOf = async (name: string) => {
      const client = await newAgent(name);
      const agent = await resolveToken(
        fx.t.deps.db,
        client.token,
        fx.t.deps.now(),
        fx.t.deps.credentialRecheckMs,
      );
      if (!agent) throw new Error('no agent');
      return agentAuthInfo(agent, client.token);
    };
    const [alice, bob] = [await authOf('pool-alice'), await authOf('pool-bob')];
    const args = { repo_url: fx.cloneUrl, branch: 'main', file_paths: ['src/other.ts'] };
    let id = 0;
    const send = (authInfo: typeof alice, message: object) =>
      pool.exchange(message as JSONRPCMessage, { authInfo, requestInfo: { headers: {} } });
    const call = async (authInfo: typeof alice, name: string, more: object = {}) => {
      const params = { name, arguments: { ...args, ...more } };
      const answer = await send(authInfo, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params });
      return answer as unknown as { id: number; result: { structuredContent: Record<string, unknown> } };
    };

    expect(
      (await call(alice, 'post_status', { status: 'WRITING', message: 'Pool.' })).result.structuredContent,
    ).toMatchObject({ success: true });
    const seenByBob = await call(bob, 'check_status');
    expect(seenByBob.result.structuredContent).toMatchObject({ status: 'CONFLICT' });
    expect(seenByBob.id).toBe(id);
    expect((await call(alice, 'check_status')).result.structuredContent).toMatchObject({ status: 'OK' });
    // Unknown tools are refused on a reused server too, and it keeps serving.
    const unknown = { jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name: 'nope', arguments: {} } };
    expect(await send(bob, unknown)).toMatchObject({ id: 99, error: { code: -32602 } });
    expect((await call(bob, 'check_status')).result.structuredContent).toMatchObject({ status: 'CONFLICT' });
    // A notification is delivered and answered by nothing.
    expect(await send(alice, { jsonrpc: '2.0', method: 'notifications/initialized' })).toBeNull();
    expect(built).toBe(1);
  });
});
