import type { Service, ServiceOutputEvent } from '@/contracts/services';

/** A service shaped as the API lists it. */
export function serviceOf(overrides: Partial<Service> = {}): Service {
  return {
    id: 'web',
    name: 'Web',
    path: '.discobot/services/web',
    http: 'auto',
    status: 'stopped',
    ...overrides,
  };
}

/**
 * A services output stream as the server sends it (one `data:` line per event, then `[DONE]`),
 * played by the test: `send` events, `done`, or `cut` the connection.
 */
export function outputStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      c.enqueue(encoder.encode(': connected\n\n'));
    },
  });
  return {
    response: () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    send(...events: ServiceOutputEvent[]) {
      controller.enqueue(
        encoder.encode(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('')),
      );
    },
    done() {
      controller.enqueue(encoder.encode('data: [DONE]\n\n'));
      controller.close();
    },
    cut() {
      controller.close();
    },
  };
}

export const stdout = (data: string): ServiceOutputEvent => ({
  type: 'stdout',
  data,
  timestamp: '2026-11-23T10:30:00.000Z',
});
export const stderr = (data: string): ServiceOutputEvent => ({
  type: 'stderr',
  data,
  timestamp: '2026-11-23T10:30:00.000Z',
});
