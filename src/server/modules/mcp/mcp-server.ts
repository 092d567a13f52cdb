import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  checkStatusResponseSchema,
  checkStatusSchema,
  postStatusResponseSchema,
  postStatusSchema,
} from '@/contracts/coordination.js';
import { AppError } from '@/server/lib/errors.js';
import { type CoordinationDeps, checkStatus, postStatus } from '../coordination/coordination.js';
import type { Agent } from '../coordination/tokens.js';

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

/**
 * The MCP server of one request (stateless): the tools `check_status` and `post_status`, the same
 * rules as POST /api/check_status and /api/post_status, for the agent the bearer token names.
 */
export function coordinationMcpServer(deps: CoordinationDeps, agent: Agent, version: string): McpServer {
  const server = new McpServer({ name: 'autocoder', version });
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
    async (input) => asTool(() => checkStatus(deps, agent, input)),
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
    async (input) => asTool(() => postStatus(deps, agent, input)),
  );
  return server;
}
