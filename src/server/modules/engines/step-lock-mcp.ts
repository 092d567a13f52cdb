import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { insideWorktree, worktreeRelative } from './engine-timeline.js';
import { listeners } from './listening.js';

/** The MCP server's name as the engine sees it (its tools are `autocoder` tools). */
export const STEP_MCP_NAME = 'autocoder';
/** Largest MCP request accepted, in bytes. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface StepLockMcp {
  listen(socketPath: string): Promise<void>;
  listenLoopback(): Promise<number>;
  close(): Promise<void>;
}

/**
 * AutoCoder's coordination tool for an engine that has no hook before its edits (Codex): an MCP
 * server of one step, over streamable HTTP (stateless, JSON answers), reached through the
 * sandbox's relay. `lock_file` takes the file's WRITING lock for the run under the same rules as
 * the built-in coder's edits: it waits while another agent writes the file, and answers with the
 * holder's name when the wait ends without it.
 */
export function createStepLockMcp(options: {
  worktree: string;
  beforeWrite(path: string): Promise<void>;
  version?: string;
}): StepLockMcp {
  function mcpServer(): McpServer {
    const server = new McpServer({ name: STEP_MCP_NAME, version: options.version ?? '1' });
    server.registerTool(
      'lock_file',
      {
        title: 'Lock a file before changing it',
        description:
          'Take the WRITING lock on a repository file before you create, change or delete it. Waits while another agent writes it; when it cannot be taken, says who holds it: then leave that file alone. Locks are released when the run ends.',
        inputSchema: {
          path: z.string().min(1).max(4096).describe('The file, relative to the repository root'),
        },
        annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      },
      async ({ path }) => {
        const file = worktreeRelative(options.worktree, path);
        if (!file || !insideWorktree(file)) {
          return {
            content: [{ type: 'text', text: 'Only files inside the repository (not .git) can be locked.' }],
            isError: true,
          };
        }
        try {
          await options.beforeWrite(file);
          return { content: [{ type: 'text', text: `Locked ${file} for this step.` }] };
        } catch (error) {
          return { content: [{ type: 'text', text: (error as Error).message }], isError: true };
        }
      },
    );
    return server;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    if ((req.url ?? '').split('?')[0] !== '/mcp') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    let body: unknown;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          res.writeHead(413).end();
          return;
        }
        chunks.push(chunk);
      }
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid JSON"}');
        return;
      }
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  return listeners(() => {
    const server = createServer((req, res) => {
      handle(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    });
    // A lock_file call may wait for another agent's lock.
    server.requestTimeout = 0;
    return server;
  });
}
