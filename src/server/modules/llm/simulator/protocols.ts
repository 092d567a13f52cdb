/**
 * How a stop is spelled on the wire; "end_turn"/"max_tokens"/"tool_use" are Anthropic's,
 * "stop"/"length"/"tool_calls" OpenAI's.
 */
export type StopKind = 'end' | 'max_tokens' | 'tool_use';

/** A tool call of an answer: its arguments as the JSON text the model "wrote". */
export interface CompletionToolCall {
  id: string;
  name: string;
  arguments: string;
  /** Responses API: the namespace the tool was declared in. */
  namespace?: string;
}

/** One answer as both wire formats need it. */
export interface Completion {
  id: string;
  model: string;
  text: string;
  stop: StopKind;
  /** On the wire as is: Anthropic's input_tokens (without cached tokens), OpenAI's prompt_tokens (with). */
  inputTokens: number;
  outputTokens: number;
  /** Tool calls after the text (tool-using requests). */
  toolCalls?: CompletionToolCall[];
  /**
   * Cache tokens, reported for tool-using (or cache-marked) requests only, so one-shot answers
   * keep their usage as it was. OpenAI reports `readTokens` as cached_tokens.
   */
  cache?: { readTokens: number; writeTokens: number };
}

/** The frames of one streamed answer, so the server can write them at its pace and cut in anywhere. */
export interface StreamProtocol {
  start(c: Completion): string[];
  delta(c: Completion, chunk: string): string;
  /** The frames of the answer's tool calls, after its text: each call's arguments in `pieces[i]`. */
  toolCalls(c: Completion, pieces: string[][]): string[];
  finish(c: Completion): string[];
  /** An error reported inside a stream that has already begun. */
  error(status: number, message: string): string;
  /** The body of a non-streaming answer. */
  message(c: Completion): unknown;
}

/** Anthropic's error `type` for each status the simulator produces. */
export const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
  529: 'overloaded_error',
};

/** `{"type":"error","error":{…}}`: Anthropic's error body, which the openai SDK reads too (it looks at `.error`). */
export function errorBody(status: number, message: string) {
  return { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message } };
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

const hasCalls = (c: Completion) => (c.toolCalls?.length ?? 0) > 0;
/** An answer made only of tool calls has no text block (Anthropic) and null content (OpenAI). */
const hasText = (c: Completion) => c.text !== '' || !hasCalls(c);

const ANTHROPIC_STOPS: Record<StopKind, string> = {
  end: 'end_turn',
  max_tokens: 'max_tokens',
  tool_use: 'tool_use',
};
const OPENAI_STOPS: Record<StopKind, string> = { end: 'stop', max_tokens: 'length', tool_use: 'tool_calls' };

function anthropicUsage(c: Completion, outputTokens: number) {
  return {
    input_tokens: c.inputTokens,
    output_tokens: outputTokens,
    ...(c.cache
      ? { cache_creation_input_tokens: c.cache.writeTokens, cache_read_input_tokens: c.cache.readTokens }
      : {}),
  };
}

/** Tool calls' inputs as objects (the arguments of an Anthropic call are always a JSON object). */
function inputOf(args: string): unknown {
  try {
    return JSON.parse(args);
  } catch {
    return {};
  }
}

export const anthropicProtocol: StreamProtocol = {
  start: (c) => [
    sse('message_start', {
      type: 'message_start',
      message: {
        id: c.id,
        type: 'message',
        role: 'assistant',
        model: c.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: anthropicUsage(c, 1),
      },
    }),
    ...(hasText(c)
      ? [
          sse('content_block_start', {
            type: 'content_block_start',
            index: 0,
            content_block: { type: 'text', text: '' },
          }),
        ]
      : []),
    sse('ping', { type: 'ping' }),
  ],
  delta: (_c, chunk) =>
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: chunk },
    }),
  toolCalls: (c, pieces) => {
    const first = hasText(c) ? 1 : 0;
    const frames = first ? [sse('content_block_stop', { type: 'content_block_stop', index: 0 })] : [];
    for (const [i, call] of (c.toolCalls ?? []).entries()) {
      const index = first + i;
      frames.push(
        sse('content_block_start', {
          type: 'content_block_start',
          index,
          content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
        }),
        ...(pieces[i] ?? []).map((piece) =>
          sse('content_block_delta', {
            type: 'content_block_delta',
            index,
            delta: { type: 'input_json_delta', partial_json: piece },
          }),
        ),
        sse('content_block_stop', { type: 'content_block_stop', index }),
      );
    }
    return frames;
  },
  finish: (c) => [
    // With tool calls the text block was closed before them.
    ...(hasCalls(c) ? [] : [sse('content_block_stop', { type: 'content_block_stop', index: 0 })]),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: ANTHROPIC_STOPS[c.stop], stop_sequence: null },
      usage: { output_tokens: c.outputTokens },
    }),
    sse('message_stop', { type: 'message_stop' }),
  ],
  error: (status, message) => sse('error', errorBody(status, message)),
  message: (c) => ({
    id: c.id,
    type: 'message',
    role: 'assistant',
    model: c.model,
    content: [
      ...(hasText(c) ? [{ type: 'text', text: c.text }] : []),
      ...(c.toolCalls ?? []).map((call) => ({
        type: 'tool_use',
        id: call.id,
        name: call.name,
        input: inputOf(call.arguments),
      })),
    ],
    stop_reason: ANTHROPIC_STOPS[c.stop],
    stop_sequence: null,
    usage: anthropicUsage(c, c.outputTokens),
  }),
};

const data = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;

/** OpenAI chat.completions; `includeUsage` mirrors the request's stream_options.include_usage. */
export function openAiProtocol(includeUsage: boolean): StreamProtocol {
  const created = Math.floor(Date.now() / 1000);
  const chunk = (c: Pick<Completion, 'id' | 'model'>, choices: unknown[], extra: object = {}) =>
    data({ id: c.id, object: 'chat.completion.chunk', created, model: c.model, choices, ...extra });
  const usage = (c: Completion) => ({
    prompt_tokens: c.inputTokens,
    completion_tokens: c.outputTokens,
    total_tokens: c.inputTokens + c.outputTokens,
    ...(c.cache ? { prompt_tokens_details: { cached_tokens: c.cache.readTokens } } : {}),
  });
  const none = { logprobs: null, finish_reason: null };
  return {
    // The SDK's stream helpers need the role in the first chunk.
    start: (c) => [
      chunk(c, [
        { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      ]),
    ],
    delta: (c, text) =>
      chunk(c, [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]),
    // Each call: its id and name with empty arguments first, then the arguments in pieces.
    toolCalls: (c, pieces) =>
      (c.toolCalls ?? []).flatMap((call, index) => [
        chunk(c, [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
              ],
            },
            ...none,
          },
        ]),
        ...(pieces[index] ?? []).map((piece) =>
          chunk(c, [
            { index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, ...none },
          ]),
        ),
      ]),
    finish: (c) => [
      chunk(c, [{ index: 0, delta: {}, logprobs: null, finish_reason: OPENAI_STOPS[c.stop] }]),
      ...(includeUsage ? [chunk(c, [], { usage: usage(c) })] : []),
      'data: [DONE]\n\n',
    ],
    error: (status, message) =>
      data({ error: { message, type: ERROR_TYPES[status] ?? 'api_error', code: status } }),
    message: (c) => ({
      id: c.id,
      object: 'chat.completion',
      created,
      model: c.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: hasText(c) ? c.text : null,
            refusal: null,
            ...(hasCalls(c)
              ? {
                  tool_calls: (c.toolCalls ?? []).map((call) => ({
                    id: call.id,
                    type: 'function',
                    function: { name: call.name, arguments: call.arguments },
                  })),
                }
              : {}),
          },
          logprobs: null,
          finish_reason: OPENAI_STOPS[c.stop],
        },
      ],
      usage: usage(c),
    }),
  };
}
