import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { LlmProvider, LlmRequest } from '@/server/modules/llm/provider.js';
import { AnswerTooLargeError, extractJSON, parseAgentJSON, runAgent } from './agent-base.js';

describe('extractJSON', () => {
  it('takes the last ```json fence, else the last fence, else the outermost braces', () => {
    expect(extractJSON('a\n```json\n{"a":1}\n```\nb\n```json\n{"b":2}\n```\n')).toBe('{"b":2}');
    expect(extractJSON('```json\n{"a":1}\n```\n```ts\nx\n```')).toBe('{"a":1}');
    expect(extractJSON('```\n{"c":3}```')).toBe('{"c":3}');
    expect(extractJSON('```JSON  extra words\n {"d":4} \n```')).toBe('{"d":4}');
    expect(extractJSON('I think {"e": {"f": 5}} is it')).toBe('{"e": {"f": 5}}');
    expect(extractJSON('```json\n   \n```\n{"g":6}')).toBe('{"g":6}');
    expect(extractJSON('no json here')).toBeNull();
    expect(extractJSON('```json\n{"unclosed":1}')).toBe('{"unclosed":1}');
  });

  it('is linear: 1 MB of backticks fails to parse in well under a second', () => {
    const started = performance.now();
    const text = '`'.repeat(1024 * 1024);
    expect(extractJSON(text)).toBeNull();
    expect(parseAgentJSON(text, z.object({}))).toBeNull();
    expect(extractJSON(`${'`'.repeat(512 * 1024)}\n${'`'.repeat(512 * 1024)}`)).toBeNull();
    expect(performance.now() - started).toBeLessThan(250);
  });
});

/** A provider that streams the given chunks and records whether its signal was aborted. */
function chunkedProvider(chunks: string[]) {
  const seen = { aborted: false, delivered: 0 };
  const provider: LlmProvider = {
    id: 'simulator',
    simulated: true,
    async stream(request: LlmRequest) {
      request.signal?.addEventListener('abort', () => {
        seen.aborted = true;
      });
      let text = '';
      for (const chunk of chunks) {
        if (request.signal?.aborted) throw new Error('aborted');
        text += chunk;
        seen.delivered += 1;
        request.onText(chunk);
      }
      return { text, usage: { inputTokens: 1, outputTokens: 1 }, model: 'm', stopReason: 'end' };
    },
    turn() {
      return Promise.reject(new Error('no tool use here'));
    },
  };
  return { provider, seen };
}

describe('runAgent', () => {
  const base = {
    config: { model: 'm', maxTokens: 100 },
    runId: 'r',
    system: 's',
    prompt: 'p',
    schema: z.object({ ok: z.boolean() }),
  };

  it('stops an answer past maxAnswerBytes, aborting its stream', async () => {
    const { provider, seen } = chunkedProvider(Array.from({ length: 10 }, () => '`'.repeat(1000)));
    const shown: string[] = [];
    const call = runAgent('coder', {
      ...base,
      provider,
      onChunk: (c) => shown.push(c),
      maxAnswerBytes: 4500,
    });
    await expect(call).rejects.toBeInstanceOf(AnswerTooLargeError);
    await expect(call).rejects.toThrow(/4500 bytes/);
    expect(seen.aborted).toBe(true);
    expect(seen.delivered).toBe(5);
    expect(shown).toHaveLength(4);
  });

  it('accepts an answer up to the cap', async () => {
    const answer = '```json\n{"ok":true}\n```';
    const { provider } = chunkedProvider([answer]);
    const result = await runAgent('coder', {
      ...base,
      provider,
      onChunk: () => {},
      maxAnswerBytes: Buffer.byteLength(answer),
    });
    expect(result.output).toEqual({ ok: true });
  });
});
