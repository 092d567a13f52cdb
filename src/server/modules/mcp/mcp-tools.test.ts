import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { createMemoryLockStore } from '../coordination/memory-lock-store.js';
import { fx, newAgent, useCoordinationApp } from '../coordination/testing/fixture.js';
import { resolveToken } from '../coordination/tokens.js';
import { agentAuthInfo, coordinationMcpServer, McpServerPool } from './mcp-server.js';

/**
 * Our `tools/call` (quick-input.ts for plain arguments, no second parse of the answer) against
 * McpServer's own, call for call on one lock store: every answer, tool errors and their texts
 * included, must be the same. Each case is sent to McpServer first, then to ours; the cases are
 * chosen so that the first call leaves the state the second one answers from as it found it (a
 * lock taken again is refreshed; the app's clock does not move).
 */
describe('tools/call', () => {
  useCoordinationApp(createMemoryLockStore);

  it('answers as McpServer answers, for plain, unusual and invalid arguments', async () => {
    const ours = new McpServerPool(() => coordinationMcpServer(fx.t.deps, 'test'));
    const sdk = new McpServerPool(() => coordinationMcpServer(fx.t.deps, 'test', { sdkToolCalls: true }));
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
    const alice = await authOf('alice');
    const bob = await authOf('bob');
    let id = 0;
    const call = async (
      pool: McpServerPool,
      auth: typeof alice,
      name: string,
      args: unknown,
    ): Promise<JSONRPCMessage | undefined> => {
      const message = {
        jsonrpc: '2.0' as const,
        id: ++id,
        method: 'tools/call',
        params: { name, arguments: args },
      } as JSONRPCMessage;
      const [answer] = await pool.exchange([message], { authInfo: auth, requestInfo: { headers: {} } });
      return answer && { ...answer, id: 0 };
    };
    const same = async (auth: typeof alice, name: string, args: unknown) => {
      const expected = await call(sdk, auth, name, args);
      const actual = await call(ours, auth, name, args);
      expect(actual, `${name} ${JSON.stringify(args)}`).toEqual(expected);
      return actual as {
        result?: { isError?: boolean; structuredContent?: Record<string, unknown> };
        error?: unknown;
      };
    };
    const base = { repo_url: fx.cloneUrl, branch: 'main' };

    // Plain arguments, each outcome of the rules.
    expect(
      (await same(alice, 'check_status', { ...base, file_paths: ['src/app.ts'] })).result?.structuredContent,
    ).toMatchObject({ status: 'OK' });
    const writing = { ...base, file_paths: ['src/auth.ts'], status: 'WRITING', message: 'Alice edits auth.' };
    expect((await same(alice, 'post_status', writing)).result?.structuredContent).toMatchObject({
      success: true,
    });
    expect(
      (await same(bob, 'check_status', { ...base, file_paths: ['src/app.ts'] })).result?.structuredContent,
    ).toMatchObject({ status: 'CONFLICT' });
    expect(
      (await same(bob, 'post_status', { ...writing, message: 'Bob too.' })).result?.structuredContent,
    ).toMatchObject({ success: false });
    await same(bob, 'check_status', { ...base, file_paths: ['src/db.ts'], agent_head: 'abcdef1' });
    await same(alice, 'post_status', {
      ...base,
      file_paths: ['src/auth.ts'],
      status: 'OPEN',
      message: 'Done.',
    });

    // Arguments quick-input.ts leaves to the schema: paths to normalise, repeats, spaces, extra fields.
    await same(alice, 'check_status', {
      ...base,
      branch: '  main ',
      file_paths: ['./src/../src/app.ts', 'src//db.ts', 'src/app.ts', ' src/other.ts'],
      agent_head: ` ${fx.head0.toUpperCase()} `,
      extra: { anything: true },
    });
    await same(alice, 'post_status', { ...writing, file_paths: ['src\\auth.ts', 'src/auth.ts'] });

    // Invalid arguments: the same tool errors, word for word.
    for (const args of [
      { ...writing, message: '   ' },
      { ...writing, message: 'x'.repeat(501) },
      { ...writing, status: 'BOGUS' },
      { ...writing, file_paths: ['../outside.ts'] },
      { ...writing, file_paths: [] },
      { ...base, status: 'WRITING', message: 'No files.' },
      { ...writing, branch: 'a..b' },
      { ...writing, status: 'OPEN', new_repo_head: 'not-a-commit' },
      { ...writing, repo_url: 'https://example.com/nobody/nothing.git' },
    ]) {
      expect(
        (await same(alice, 'post_status', args)).result?.isError,
        JSON.stringify(args).slice(0, 200),
      ).toBe(true);
    }
    // Arguments that are not an object never reach a tool: the protocol refuses the request.
    for (const args of [[], 'text']) {
      expect(await same(alice, 'post_status', args)).toHaveProperty('error');
    }
    await same(alice, 'check_status', {
      ...base,
      file_paths: Array.from({ length: 1001 }, (_, i) => `f${i}.ts`),
    });
    expect((await same(alice, 'no_such_tool', {})).result?.isError).toBe(true);
  });
});
