import { type Completion, ERROR_TYPES, type StreamProtocol } from './protocols.js';

/**
 * OpenAI's Responses API on the wire (what Codex reads): `event: <type>` / `data: {"type":<type>,…}`
 * frames — response.created, the message item's text deltas, each function_call item with its
 * arguments in pieces, then response.completed (or response.incomplete at max_output_tokens) with
 * the whole output and the usage. One protocol object per answer: it numbers its events.
 */
export function responsesProtocol(): StreamProtocol {
  let sequence = 0;
  let responseId = '';
  const createdAt = Math.floor(Date.now() / 1000);
  const frame = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;

  const hasCalls = (c: Completion) => (c.toolCalls?.length ?? 0) > 0;
  const hasText = (c: Completion) => c.text !== '' || !hasCalls(c);
  const messageId = (c: Completion) => `msg_${c.id}`;
  const messageItem = (c: Completion, status: string, text: string | undefined) => ({
    type: 'message',
    id: messageId(c),
    status,
    role: 'assistant',
    content: text === undefined ? [] : [{ type: 'output_text', text, annotations: [] }],
  });
  const callItems = (c: Completion, status: string, withArguments: boolean) =>
    (c.toolCalls ?? []).map((call) => ({
      type: 'function_call',
      id: `fc_${call.id}`,
      call_id: call.id,
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: withArguments ? call.arguments : '',
      status,
    }));
  const output = (c: Completion) => [
    ...(hasText(c) ? [messageItem(c, 'completed', c.text)] : []),
    ...callItems(c, 'completed', true),
  ];
  const usage = (c: Completion) => ({
    input_tokens: c.inputTokens,
    input_tokens_details: { cached_tokens: c.cache?.readTokens ?? 0 },
    output_tokens: c.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: c.inputTokens + c.outputTokens,
  });
  const response = (c: Completion, status: string, done: boolean) => ({
    id: c.id,
    object: 'response',
    created_at: createdAt,
    status,
    model: c.model,
    output: done ? output(c) : [],
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    error: null,
    usage: done ? usage(c) : null,
  });
  const closeText = (c: Completion) => [
    frame('response.output_text.done', {
      item_id: messageId(c),
      output_index: 0,
      content_index: 0,
      text: c.text,
    }),
    frame('response.content_part.done', {
      item_id: messageId(c),
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: c.text, annotations: [] },
    }),
    frame('response.output_item.done', { output_index: 0, item: messageItem(c, 'completed', c.text) }),
  ];

  return {
    start: (c) => {
      responseId = c.id;
      return [
        frame('response.created', { response: response(c, 'in_progress', false) }),
        frame('response.in_progress', { response: response(c, 'in_progress', false) }),
        ...(hasText(c)
          ? [
              frame('response.output_item.added', {
                output_index: 0,
                item: messageItem(c, 'in_progress', undefined),
              }),
              frame('response.content_part.added', {
                item_id: messageId(c),
                output_index: 0,
                content_index: 0,
                part: { type: 'output_text', text: '', annotations: [] },
              }),
            ]
          : []),
      ];
    },
    delta: (c, chunk) =>
      frame('response.output_text.delta', {
        item_id: messageId(c),
        output_index: 0,
        content_index: 0,
        delta: chunk,
      }),
    toolCalls: (c, pieces) => {
      const first = hasText(c) ? 1 : 0;
      const frames = first ? closeText(c) : [];
      const started = callItems(c, 'in_progress', false);
      const done = callItems(c, 'completed', true);
      for (const [i, item] of started.entries()) {
        const outputIndex = first + i;
        frames.push(
          frame('response.output_item.added', { output_index: outputIndex, item }),
          ...(pieces[i] ?? []).map((delta) =>
            frame('response.function_call_arguments.delta', {
              item_id: item.id,
              output_index: outputIndex,
              delta,
            }),
          ),
          frame('response.function_call_arguments.done', {
            item_id: item.id,
            output_index: outputIndex,
            arguments: done[i]!.arguments,
          }),
          frame('response.output_item.done', { output_index: outputIndex, item: done[i] }),
        );
      }
      return frames;
    },
    finish: (c) => {
      const status = c.stop === 'max_tokens' ? 'incomplete' : 'completed';
      return [
        // With calls, the message was closed before them.
        ...(hasCalls(c) ? [] : closeText(c)),
        frame(`response.${status}`, { response: response(c, status, true) }),
      ];
    },
    error: (status, message) =>
      frame('response.failed', {
        response: {
          id: responseId,
          object: 'response',
          created_at: createdAt,
          status: 'failed',
          output: [],
          error: { code: ERROR_CODES[status] ?? ERROR_TYPES[status] ?? 'server_error', message },
          usage: null,
        },
      }),
    message: (c) => response(c, c.stop === 'max_tokens' ? 'incomplete' : 'completed', true),
  };
}

/** The `error.code` OpenAI gives a failed response, by the status it stands for. */
const ERROR_CODES: Record<number, string> = {
  429: 'rate_limit_exceeded',
  500: 'server_error',
  529: 'server_is_overloaded',
};
