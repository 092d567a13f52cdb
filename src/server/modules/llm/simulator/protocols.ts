/** How a stop is spelled on the wire; "end_turn"/"max_tokens" are Anthropic's, "stop"/"length" OpenAI's. */
export type StopKind = 'end' | 'max_tokens';

/** One answer as both wire formats need it. */
export interface Completion {
  id: string;
  model: string;
  text: string;
  stop: StopKind;
  inputTokens: number;
  outputTokens: number;
}

/** The frames of one streamed answer, so the server can write them at its pace and cut in anywhere. */
export interface StreamProtocol {
  start(c: Completion): string[];
  delta(c: Completion, chunk: string): string;
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
        usage: { input_tokens: c.inputTokens, output_tokens: 1 },
      },
    }),
    sse('content_block_start', {
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '' },
    }),
    sse('ping', { type: 'ping' }),
  ],
  delta: (_c, chunk) =>
    sse('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: chunk },
    }),
  finish: (c) => [
    sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
    sse('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: c.stop === 'end' ? 'end_turn' : 'max_tokens', stop_sequence: null },
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
    content: [{ type: 'text', text: c.text }],
    stop_reason: c.stop === 'end' ? 'end_turn' : 'max_tokens',
    stop_sequence: null,
    usage: { input_tokens: c.inputTokens, output_tokens: c.outputTokens },
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
  });
  return {
    // The SDK's stream helpers need the role in the first chunk.
    start: (c) => [
      chunk(c, [
        { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      ]),
    ],
    delta: (c, text) =>
      chunk(c, [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }]),
    finish: (c) => [
      chunk(c, [
        { index: 0, delta: {}, logprobs: null, finish_reason: c.stop === 'end' ? 'stop' : 'length' },
      ]),
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
          message: { role: 'assistant', content: c.text, refusal: null },
          logprobs: null,
          finish_reason: c.stop === 'end' ? 'stop' : 'length',
        },
      ],
      usage: usage(c),
    }),
  };
}
