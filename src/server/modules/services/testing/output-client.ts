import type { ServiceOutputEvent } from '@/contracts/services.js';

/** What an output stream carried: its events in order, and whether it ended with `data: [DONE]`. */
export interface OutputRead {
  events: ServiceOutputEvent[];
  done: boolean;
}

/**
 * Reads a service's output SSE stream over real HTTP until `[DONE]` (or `stopWhen` says enough,
 * or the limit passes), parsing each `data:` line.
 */
export async function readOutput(
  url: string,
  cookie: string,
  options: {
    stopWhen?: (events: ServiceOutputEvent[]) => boolean;
    onEvents?: (events: ServiceOutputEvent[]) => void;
    limitMs?: number;
  } = {},
): Promise<OutputRead> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.limitMs ?? 30_000);
  const events: ServiceOutputEvent[] = [];
  let done = false;
  try {
    const res = await fetch(url, { headers: { cookie }, signal: controller.signal });
    if (res.status !== 200 || !res.body)
      throw new Error(`output answered ${res.status}: ${await res.text()}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        if (!frame.startsWith('data: ')) continue;
        const data = frame.slice('data: '.length);
        if (data === '[DONE]') done = true;
        else events.push(JSON.parse(data) as ServiceOutputEvent);
      }
      options.onEvents?.(events);
      if (done || options.stopWhen?.(events)) break;
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { events, done };
}

/** The text of the stdout and stderr events together. */
export const textOf = (events: ServiceOutputEvent[]) =>
  events.map((event) => (event.type === 'exit' ? '' : event.data)).join('');
