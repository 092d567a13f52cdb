import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** A message the SDK's JSONRPCMessageSchema accepted that expects an answer (it has an id and a method). */
const isRequest = (message: JSONRPCMessage) => 'method' in message && 'id' in message;

const isResponse = (message: JSONRPCMessage) =>
  !('method' in message) && ('result' in message || 'error' in message);

interface Exchange {
  id: RequestId;
  resolve: (answer: JSONRPCMessage) => void;
}

/**
 * Deviation from the SDK's way: a transport of ours (the SDK's `Transport` interface) in place of a
 * `WebStandardStreamableHTTPServerTransport` per request. It is connected to its server once and
 * carries one HTTP request's message at a time, as the SDK's transport does in stateless JSON mode;
 * the SDK's must be built, connected and closed per request (it refuses a second one), and that
 * took an MCP call from 0.28–0.36 to 0.43–0.51 ms of the server's CPU (docs/coordination.md).
 * mcp-http.test.ts holds every answer of /mcp to the SDK's transport's.
 *
 * `exchange` hands the server one message and resolves with its answer, or at once with none for a
 * notification or a response (the HTTP answer is then 202). As in the SDK's JSON mode, what the
 * server sends besides answers (progress or log notifications) has no stream to go to and is dropped.
 */
export class JsonExchangeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  #current: Exchange | null = null;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.#current = null;
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!isResponse(message)) return;
    const id = (message as { id?: RequestId }).id;
    const current = this.#current;
    if (id === undefined || current?.id !== id) {
      throw new Error(`No connection established for request ID: ${String(id)}`);
    }
    this.#current = null;
    current.resolve(message);
  }

  /** Delivers one HTTP request's message: its answer, or null for a notification or a response. */
  exchange(message: JSONRPCMessage, extra: MessageExtraInfo): Promise<JSONRPCMessage | null> {
    if (this.#current) throw new Error('JsonExchangeTransport: one exchange at a time');
    if (!isRequest(message)) {
      this.onmessage?.(message, extra);
      return Promise.resolve(null);
    }
    return new Promise((resolve) => {
      this.#current = { id: (message as { id: RequestId }).id, resolve };
      this.onmessage?.(message, extra);
    });
  }
}
