import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AGENT_TYPES, type AgentType } from '@/contracts/pipeline.js';
import { anthropicProtocol } from '@/server/modules/llm/simulator/protocols.js';

/** One Messages API request as the proxy saw it. */
export interface SeenRequest {
  agent: AgentType | undefined;
  runId: string | undefined;
  system: string;
  prompt: string;
  /** Turns of the conversation before this request (its assistant messages): 0 for a step's first request. */
  turn: number;
}

/** Answers a request itself (returns true) or lets it through to the simulator (false). */
export type Responder = (seen: SeenRequest, res: ServerResponse) => boolean;

export interface LlmProxy {
  url: string;
  /** Every request, in arrival order. */
  readonly requests: SeenRequest[];
  respondWith(responder: Responder | undefined): void;
  /** Adds simulator directives (e.g. `slow=50`) to the requests it returns them for. */
  addScenario(extra: ((seen: SeenRequest) => string | undefined) | undefined): void;
  /** Leaves matching requests hanging (no headers, no body) until `dropHeld`. */
  holdWhen(match: (seen: SeenRequest) => boolean): void;
  /** The next held request (one held earlier and not yet claimed, or the next to come). */
  nextHeld(): Promise<SeenRequest>;
  /** Cuts every held request's connection, as a dead process would. */
  dropHeld(): void;
  close(): Promise<void>;
}

function agentOf(system: string): AgentType | undefined {
  const role = /^#\s*Role:\s*(\w+)/i.exec(system.trimStart())?.[1]?.toLowerCase();
  return AGENT_TYPES.find((agent) => agent === role);
}

/** A system prompt or message content as text: a string, or the text of its blocks (a cache mark makes blocks). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  if (content.every((block) => block && typeof block === 'object' && block.type === 'text'))
    return content.map((block: { text?: unknown }) => String(block.text ?? '')).join('\n');
  return JSON.stringify(content);
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Streams `text` back in the Anthropic protocol, as a model would. */
export function streamText(res: ServerResponse, text: string): void {
  const completion = {
    id: 'msg_proxy',
    model: 'proxy',
    text,
    stop: 'end' as const,
    inputTokens: 10,
    outputTokens: 10,
  };
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  for (const frame of anthropicProtocol.start(completion)) res.write(frame);
  res.write(anthropicProtocol.delta(completion, text));
  for (const frame of anthropicProtocol.finish(completion)) res.write(frame);
  res.end();
}

/**
 * A recording HTTP proxy in front of the simulator: the app talks to it as to any
 * Anthropic-compatible endpoint. Tests read what the agents were asked (their prompts) and
 * may answer a request themselves or hold it, which the simulator cannot script.
 */
export async function startLlmProxy(targetUrl: string): Promise<LlmProxy> {
  const target = new URL(targetUrl);
  const requests: SeenRequest[] = [];
  const held = new Set<ServerResponse>();
  const waiting: ((seen: SeenRequest) => void)[] = [];
  const unclaimed: SeenRequest[] = [];
  let responder: Responder | undefined;
  let extraScenario: ((seen: SeenRequest) => string | undefined) | undefined;

  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      let parsed: { system?: unknown; messages?: { content?: unknown }[] } = {};
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        // not JSON: forwarded as it came
      }
      const system = textOf(parsed.system);
      const seen: SeenRequest = {
        agent: agentOf(system),
        runId: req.headers['x-autocoder-run-id']?.toString(),
        system,
        // The first user message is the step; a tool loop's later messages carry tool results.
        prompt: textOf(parsed.messages?.[0]?.content),
        turn: (parsed.messages ?? []).filter((m) => (m as { role?: unknown }).role === 'assistant').length,
      };
      requests.push(seen);
      if (responder?.(seen, res)) return;
      const headers: Record<string, string | string[] | undefined> = { ...req.headers, host: target.host };
      const extra = extraScenario?.(seen);
      if (extra) {
        const current = headers['x-simulator-scenario']?.toString();
        headers['x-simulator-scenario'] = current ? `${current},${extra}` : extra;
      }
      const upstream = request(
        {
          host: target.hostname,
          port: target.port,
          method: req.method,
          path: req.url,
          headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          // The simulator cut the connection (drop): cut ours too, as a network would.
          answer.on('close', () => {
            if (!answer.complete) res.destroy();
          });
        },
      );
      upstream.on('error', () => res.destroy());
      res.on('close', () => upstream.destroy());
      upstream.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respondWith(next) {
      responder = next;
    },
    addScenario(extra) {
      extraScenario = extra;
    },
    holdWhen(match) {
      responder = (seen, res) => {
        if (!match(seen)) return false;
        held.add(res);
        const next = waiting.shift();
        if (next) next(seen);
        else unclaimed.push(seen);
        return true;
      };
    },
    nextHeld() {
      const ready = unclaimed.shift();
      return ready ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
    dropHeld() {
      for (const res of held) res.socket?.destroy();
      held.clear();
    },
    async close() {
      for (const res of held) res.socket?.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
