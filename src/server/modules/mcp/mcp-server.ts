import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
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
 * redoing its argument and answer checks, so the call is answered on its way in, after the
 * transport's own checks, through the transport's `send` as the server would answer it.
 * mcp-http.test.ts and mcp.test.ts hold the answer.
 */
function refuseUnknownTools(transport: Transport): void {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message) && message.method === 'tools/call') {
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

interface Pooled {
  server: McpServer;
  /** The transport of the last request the server answered, still connected. */
  transport?: Transport;
}

/**
 * MCP servers for stateless requests, each request answered by the SDK's own transport for web
 * requests, new per request (stateless, JSON answers), connected to a server no other request
 * holds. Deviation from the SDK's stateless example, which builds a new McpServer per request too:
 * the servers are kept and reused, connected to one request's transport at a time, since building
 * one (its tools, their schemas) cost more than the call it answers. The auth info and handlers'
 * context are per request, so a reused server answers each agent as itself (mcp-server.test.ts).
 */
export class McpServerPool {
  readonly #idle: Pooled[] = [];

  constructor(private readonly create: () => McpServer) {}

  /** The transport's answer to one HTTP request (`parsedBody`: its body, already read). */
  async handle(request: Request, options: { authInfo: AuthInfo; parsedBody?: unknown }): Promise<Response> {
    const pooled = this.#idle.pop() ?? { server: this.create() };
    // The last request's transport is closed only now, to free the server: closed as soon as it
    // answered, it found the request's handler not quite done and aborted its signal, a
    // DOMException per call.
    await pooled.transport?.close();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    pooled.transport = transport;
    await pooled.server.connect(transport);
    refuseUnknownTools(transport);
    let response: Response | undefined;
    try {
      response = await transport.handleRequest(request, options);
      return response;
    } finally {
      if (response && this.#idle.length < MAX_IDLE_SERVERS) this.#idle.push(pooled);
      else await transport.close();
    }
  }
}
