import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { getParseErrorMessage, safeParseAsync } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type JSONRPCMessage,
  McpError,
  type MessageExtraInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { z } from 'zod';
import {
  checkStatusResponseSchema,
  checkStatusSchema,
  postStatusResponseSchema,
  postStatusSchema,
} from '@/contracts/coordination.js';
import { AppError } from '@/server/lib/errors.js';
import { type CoordinationDeps, checkStatus, postStatus } from '../coordination/coordination.js';
import { quickCheckStatusInput, quickPostStatusInput } from '../coordination/quick-input.js';
import type { Agent } from '../coordination/tokens.js';
import { JsonExchangeTransport } from './json-transport.js';

/** The largest JSON-RPC message accepted (a post of 1,000 paths fits many times over). */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;

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
  // mcp.routes.ts always passes it: a request without one never reaches a tool.
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

/** A tool's arguments as its schema reads them, with the SDK's parse and error message. */
async function parsedLikeSdk<Input>(schema: z.ZodType<Input>, args: unknown, name: string): Promise<Input> {
  const parsed = await safeParseAsync(schema, args);
  if (!parsed.success) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Input validation error: Invalid arguments for tool ${name}: ${getParseErrorMessage(parsed.error)}`,
    );
  }
  return parsed.data;
}

type ToolCall = (
  deps: CoordinationDeps,
  authInfo: AuthInfo | undefined,
  args: unknown,
) => Promise<CallToolResult>;

/** A tool's call: its arguments read plainly (quick-input.ts) or by its schema, then its rule. */
const toolCall =
  <Input>(
    name: string,
    schema: z.ZodType<Input>,
    quick: (args: unknown) => Input | null,
    run: (deps: CoordinationDeps, agent: Agent, input: Input) => Promise<object>,
  ): ToolCall =>
  async (deps, authInfo, args) => {
    const input = quick(args) ?? (await parsedLikeSdk(schema, args, name));
    return asTool(() => run(deps, agentOf(authInfo), input));
  };

const TOOL_CALLS = new Map<string, ToolCall>([
  ['check_status', toolCall('check_status', checkStatusSchema, quickCheckStatusInput, checkStatus)],
  ['post_status', toolCall('post_status', postStatusSchema, quickPostStatusInput, postStatus)],
]);

/**
 * `tools/call` as McpServer answers it for these tools, answer for answer, without its two zod
 * passes: the arguments an agent sends plainly are read by quick-input.ts, as REST bodies are (held
 * to the schemas by quick-input.test.ts), anything else by the tool's schema with the SDK's own parse
 * and error message; the answer is not parsed again against the output schema, since the same typed
 * rules answer REST (mcp-tools.test.ts holds every answer to McpServer's own handler's, and the
 * SDK's client checks `structuredContent` against the listed output schema). Those two passes were
 * about an eighth of a call's CPU. Everything else (listing, the protocol, errors) stays McpServer's.
 */
function callTool(deps: CoordinationDeps) {
  return async (
    request: z.infer<typeof CallToolRequestSchema>,
    extra: { authInfo?: AuthInfo | undefined },
  ): Promise<CallToolResult> => {
    const name = request.params.name;
    try {
      const call = TOOL_CALLS.get(name);
      if (!call) throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
      return await call(deps, extra.authInfo, request.params.arguments ?? {});
    } catch (error) {
      // As McpServer's createToolError.
      const text = error instanceof Error ? error.message : String(error);
      return { content: [{ type: 'text', text }], isError: true };
    }
  };
}

/**
 * An MCP server with the tools `check_status` and `post_status`: the same rules as POST
 * /api/check_status and /api/post_status, for the agent the request's auth info names (so one
 * server serves any agent, one request at a time). `sdkToolCalls` keeps McpServer's own
 * `tools/call` (for the test that holds ours to it).
 */
export function coordinationMcpServer(
  deps: CoordinationDeps,
  version: string,
  options: { sdkToolCalls?: boolean } = {},
): McpServer {
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
  if (!options.sdkToolCalls) {
    server.server.removeRequestHandler('tools/call');
    server.server.setRequestHandler(CallToolRequestSchema, callTool(deps));
  }
  return server;
}

/** Servers at most kept idle; more only under a burst of concurrent requests. */
const MAX_IDLE_SERVERS = 64;

interface Connected {
  server: McpServer;
  transport: JsonExchangeTransport;
}

/**
 * MCP servers for stateless requests, reused: building one (its tools, their schemas) costs more
 * than the call it answers, and so did connecting and closing it per request. Each server is
 * connected once to a transport of its own (json-transport.ts); each request gets a server no
 * other request holds, and gives it back once answered.
 */
export class McpServerPool {
  readonly #idle: Connected[] = [];

  constructor(private readonly create: () => McpServer) {}

  /** The answers to the requests among `messages` (none when there are only notifications). */
  async exchange(messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
    const connected = this.#idle.pop() ?? (await this.#connect());
    let reusable = false;
    try {
      const answers = await connected.transport.exchange(messages, extra);
      reusable = true;
      return answers;
    } finally {
      if (reusable && this.#idle.length < MAX_IDLE_SERVERS) this.#idle.push(connected);
      else await connected.server.close();
    }
  }

  async #connect(): Promise<Connected> {
    const server = this.create();
    const transport = new JsonExchangeTransport();
    await server.connect(transport);
    return { server, transport };
  }
}
