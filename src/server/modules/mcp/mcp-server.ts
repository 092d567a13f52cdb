import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  ErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  checkStatusResponseSchema,
  checkStatusSchema,
  postStatusResponseSchema,
  postStatusSchema,
} from '@/contracts/coordination.js';
import { AppError } from '@/server/lib/errors.js';
import { type CoordinationDeps, checkStatus, postStatus } from '../coordination/coordination.js';
import type { Agent } from '../coordination/tokens.js';
import { JsonExchangeTransport } from './json-transport.js';

/** The tools, by name: what `tools/list` lists and `tools/call` may name. */
export const TOOL_NAMES = ['check_status', 'post_status'] as const;
const TOOLS: ReadonlySet<string> = new Set(TOOL_NAMES);

const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** The answer of a tool: the REST answer as `structuredContent`, and as text for clients without it. */
const answer = (body: object): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(body) }],
  structuredContent: body as Record<string, unknown>,
});

/** A rule's refusal (400, 404 REPO_NOT_FOUND…) as a tool error carrying REST's error body. */
async function asTool(run: () => Promise<object>): Promise<CallToolResult> {
  try {
    return answer(await run());
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const body = { error: error.code, message: error.message, ...error.details };
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
  }
}

/** The agent the bearer token named, handed to the tools through the transport's auth info. */
function agentOf(authInfo: AuthInfo | undefined): Agent {
  const agent = authInfo?.extra?.agent as Agent | undefined;
  // mcp-http.ts always passes it: a request without one never reaches a tool.
  if (!agent) throw new Error('MCP request without an agent');
  return agent;
}

/** Auth info naming the agent, for `transport.handleRequest(request, { authInfo })`. */
export const agentAuthInfo = (agent: Agent, token: string): AuthInfo => ({
  token,
  clientId: agent.id,
  scopes: [],
  extra: { agent },
});

/**
 * An MCP server with the tools `check_status` and `post_status`: the same rules as POST
 * /api/check_status and /api/post_status, for the agent the request's auth info names (so one
 * server serves any agent, one request at a time). McpServer answers `tools/list` and `tools/call`
 * itself: it checks the arguments against the input schema (an invalid one is a tool error, as the
 * specification asks since 2025-11-25) and the answer against the output schema.
 */
export function coordinationMcpServer(deps: CoordinationDeps, version: string): McpServer {
  // One validator for every server: the SDK's default builds an Ajv instance per server.
  const server = new McpServer({ name: 'autocoder', version }, { jsonSchemaValidator });
  server.registerTool(
    'check_status',
    {
      title: 'Check file locks',
      description:
        'Before editing files: which other agents read or write them (DIRECT) or the files they import or that import them (NEIGHBOR), whether your head is stale, and what to do next (orchestration.action: PROCEED, PULL or SWITCH_TASK).',
      inputSchema: checkStatusSchema,
      outputSchema: checkStatusResponseSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (input, extra) => asTool(() => checkStatus(deps, agentOf(extra.authInfo), input)),
  );
  server.registerTool(
    'post_status',
    {
      title: 'Take or release file locks',
      description:
        'Announce READING or WRITING on files (all or none are taken; WAIT when another agent writes one), or OPEN to release them after pushing (new_repo_head required; PUSH when the server does not have that commit yet). message: one sentence of intent.',
      inputSchema: postStatusSchema,
      outputSchema: postStatusResponseSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async (input, extra) => asTool(() => postStatus(deps, agentOf(extra.authInfo), input)),
  );
  return server;
}

/**
 * Deviation from McpServer: a `tools/call` naming a tool that does not exist is answered with the
 * JSON-RPC error the specification gives for it (Tools → Error Handling: unknown tools are protocol
 * errors, `-32602 Unknown tool: …`), where McpServer (SDK 1.32) answers a tool result with
 * `isError`. McpServer's handler cannot be wrapped (it is private) and replacing it would mean
 * redoing its argument and answer checks, so the call is answered on its way in, after the HTTP
 * checks, through the transport's `send` as the server would answer it.
 * mcp-http.test.ts and mcp.test.ts hold the answer.
 */
function refuseUnknownTools(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    // The message passed JSONRPCMessageSchema (mcp-http.ts): an id and a method make a request.
    if ('id' in message && 'method' in message && message.method === 'tools/call') {
      const name = message.params?.name;
      if (typeof name === 'string' && !TOOLS.has(name)) {
        void transport.send({
          jsonrpc: '2.0',
          id: message.id,
          error: { code: ErrorCode.InvalidParams, message: `Unknown tool: ${name}` },
        });
        return;
      }
    }
    deliver?.(message, extra);
  };
}

/** Servers at most kept idle; more only under a burst of concurrent requests. */
const MAX_IDLE_SERVERS = 64;

interface Connected {
  server: McpServer;
  transport: JsonExchangeTransport;
}

/**
 * MCP servers for stateless requests, each request answered by a server no other request holds.
 * Deviation from the SDK's stateless example, which builds a new McpServer (and transport) per
 * request: the servers are kept, each connected once to a transport of its own (json-transport.ts),
 * since building one (its tools, their schemas) costs more than the call it answers. The auth info
 * and the handlers' context are per request, so a reused server answers each agent as itself
 * (mcp-server.test.ts).
 */
export class McpServerPool {
  readonly #idle: Connected[] = [];

  constructor(private readonly create: () => McpServer) {}

  /** The answer to one message: null for a notification or a response. */
  async exchange(message: JSONRPCMessage, extra: MessageExtraInfo): Promise<JSONRPCMessage | null> {
    const connected = this.#idle.pop() ?? (await this.#connect());
    let reusable = false;
    try {
      const answer = await connected.transport.exchange(message, extra);
      reusable = true;
      return answer;
    } finally {
      if (reusable && this.#idle.length < MAX_IDLE_SERVERS) this.#idle.push(connected);
      else await connected.server.close();
    }
  }

  async #connect(): Promise<Connected> {
    const server = this.create();
    const transport = new JsonExchangeTransport();
    await server.connect(transport);
    refuseUnknownTools(transport);
    return { server, transport };
  }
}
