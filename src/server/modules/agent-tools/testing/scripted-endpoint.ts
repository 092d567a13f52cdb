import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted model turn: some prose, and tool calls (their input as an object, or raw JSON text). */
export interface ScriptedTurn {
  text?: string;
  calls?: { name: string; input: Record<string, unknown> | string }[];
  /** Hold the answer until this promise settles (to cancel a turn in flight). */
  hold?: Promise<unknown>;
  /** Refuse the request with this status and message instead (the API's error body). */
  refuse?: { status: number; message: string };
}

/** What the script is given: the request as sent, and which turn of the conversation this is. */
export interface ScriptedRequest {
  protocol: 'anthropic' | 'openai';
  body: Record<string, unknown>;
  /** Tool results the request carries for the previous turn, in order: { content, isError }. */
  results: { content: string; isError: boolean }[];
  turn: number;
  /** The role its system prompt names ("# Role: coder"), if any. */
  agent: string | undefined;
  /** The request's credential headers, as they arrived. */
  apiKey: string | undefined;
  authorization: string | undefined;
}

export interface ScriptedEndpoint {
  /** The Anthropic SDK's baseURL; the OpenAI SDK's is `${url}/v1`. */
  url: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

/**
 * A stand-in model endpoint for tests: speaks the Anthropic Messages and OpenAI chat.completions
 * streaming protocols with tool calls, answering each request with the script's next turn (the
 * turn number is the count of assistant messages in the request). The real SDKs parse its bytes.
 */
export async function startScriptedEndpoint(
  script: (request: ScriptedRequest) => ScriptedTurn | Promise<ScriptedTurn>,
): Promise<ScriptedEndpoint> {
  const requests: ScriptedRequest[] = [];
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(error) } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const protocol = req.url?.includes('chat/completions') ? 'openai' : 'anthropic';
    const messages = (body.messages ?? []) as { role: string; content: unknown }[];
    const request: ScriptedRequest = {
      protocol,
      body,
      results: resultsOf(protocol, messages),
      turn: messages.filter((m) => m.role === 'assistant').length,
      agent: /#\s*Role:\s*(\w+)/i
        .exec(JSON.stringify(body.system ?? messages[0]?.content ?? ''))?.[1]
        ?.toLowerCase(),
      apiKey: req.headers['x-api-key'] as string | undefined,
      authorization: req.headers.authorization,
    };
    requests.push(request);
    const turn = await script(request);
    if (turn.hold) await turn.hold;
    if (turn.refuse) {
      res.writeHead(turn.refuse.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'invalid_request_error', message: turn.refuse.message },
        }),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const frames = protocol === 'anthropic' ? anthropicFrames(turn) : openAiFrames(turn);
    for (const frame of frames) {
      if (res.destroyed) return;
      res.write(frame);
      // A turn of the event loop between frames, so the client sees a stream, not one buffer.
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function resultsOf(protocol: 'anthropic' | 'openai', messages: { role: string; content: unknown }[]) {
  if (protocol === 'openai') {
    const out: { content: string; isError: boolean }[] = [];
    for (let i = messages.length - 1; i >= 0 && messages[i]?.role !== 'assistant'; i--) {
      const message = messages[i];
      if (message?.role === 'tool') {
        const content = String(message.content);
        out.unshift({ content, isError: content.startsWith('Error: ') });
      }
    }
    return out;
  }
  const last = messages.at(-1);
  if (!last || !Array.isArray(last.content)) return [];
  return (last.content as { type: string; content?: unknown; is_error?: boolean }[])
    .filter((block) => block.type === 'tool_result')
    .map((block) => ({ content: String(block.content), isError: block.is_error === true }));
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const argumentsOf = (input: Record<string, unknown> | string) =>
  typeof input === 'string' ? input : JSON.stringify(input);
/** Splits a JSON text into a few pieces, as a model's deltas arrive. */
function pieces(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 3));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out.length > 0 ? out : [''];
}

function anthropicFrames(turn: ScriptedTurn): string[] {
  const calls = turn.calls ?? [];
  const frames = [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: 'msg_scripted',
        type: 'message',
        role: 'assistant',
        model: 'scripted-model',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 100,
          output_tokens: 1,
          cache_read_input_tokens: 40,
          cache_creation_input_tokens: 10,
        },
      },
    }),
  ];
  let index = 0;
  if (turn.text) {
    frames.push(
      sse('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      }),
      sse('content_block_delta', {
        type: 'content_block_delta',
        index,
        delta: { type: 'text_delta', text: turn.text },
      }),
      sse('content_block_stop', { type: 'content_block_stop', index }),
    );
    index++;
  }
  for (const [n, call] of calls.entries()) {
    frames.push(
      sse('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: {
          type: 'tool_use',
          id: `toolu_${n}_${Math.random().toString(36).slice(2, 8)}`,
          name: call.name,
          input: {},
        },
      }),
      ...pieces(argumentsOf(call.input)).map((partial) =>
        sse('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: partial },
        }),
      ),
      sse('content_block_stop', { type: 'content_block_stop', index }),
    );
    index++;
  }
  frames.push(
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 20 },
    }),
    sse('message_stop', { type: 'message_stop' }),
  );
  return frames;
}

function openAiFrames(turn: ScriptedTurn): string[] {
  const calls = turn.calls ?? [];
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: unknown) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-scripted',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'scripted-model',
      choices: usage ? [] : [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    })}\n\n`;
  const frames = [chunk({ role: 'assistant', content: '' })];
  if (turn.text) frames.push(chunk({ content: turn.text }));
  for (const [n, call] of calls.entries()) {
    frames.push(
      chunk({
        tool_calls: [
          {
            index: n,
            id: `call_${n}_${Math.random().toString(36).slice(2, 8)}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      }),
      ...pieces(argumentsOf(call.input)).map((partial) =>
        chunk({ tool_calls: [{ index: n, function: { arguments: partial } }] }),
      ),
    );
  }
  frames.push(
    chunk({}, calls.length > 0 ? 'tool_calls' : 'stop'),
    chunk({}, null, {
      prompt_tokens: 100,
      completion_tokens: 20,
      total_tokens: 120,
      prompt_tokens_details: { cached_tokens: 40 },
    }),
    'data: [DONE]\n\n',
  );
  return frames;
}
