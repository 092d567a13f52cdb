import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

const MESSAGE_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * One message of a request body, as the SDK's transport reads it (`JSONRPCMessageSchema.parse`,
 * which throws on an invalid one). A plain request or notification — `jsonrpc: "2.0"`, a method,
 * a string or integer id or none, params an object without `_meta` or none, nothing else — is
 * valid as it is, and is taken without the schema: its union of four strict objects costs more
 * than the rest of reading the call. Anything else is the schema's to judge.
 */
export function jsonRpcMessageOf(value: unknown): JSONRPCMessage {
  if (
    isPlainObject(value) &&
    value.jsonrpc === '2.0' &&
    typeof value.method === 'string' &&
    (!('id' in value) || typeof value.id === 'string' || Number.isSafeInteger(value.id)) &&
    (!('params' in value) || (isPlainObject(value.params) && !('_meta' in value.params))) &&
    Object.keys(value).every((key) => MESSAGE_KEYS.has(key))
  ) {
    return value as JSONRPCMessage;
  }
  return JSONRPCMessageSchema.parse(value);
}

/** A message the SDK's JSONRPCMessageSchema accepted that expects an answer (it has an id and a method). */
export const isRequest = (message: JSONRPCMessage) => 'method' in message && 'id' in message;

const isResponse = (message: JSONRPCMessage) =>
  !('method' in message) && ('result' in message || 'error' in message);

interface Exchange {
  /** The requests' ids, in the order they came: the answers go out in that order. */
  ids: RequestId[];
  responses: Map<RequestId, JSONRPCMessage>;
  resolve: (responses: JSONRPCMessage[]) => void;
}

/**
 * The SDK's `Transport` for stateless Streamable HTTP with JSON answers, as the SDK's own
 * `WebStandardStreamableHTTPServerTransport` behaves with `sessionIdGenerator: undefined` and
 * `enableJsonResponse: true` — but connected once and used for many HTTP requests, one at a time:
 * the SDK's transport must be created, connected and closed per request, which cost more than the
 * tool call it carried (its web streams, abort signals and the server's close()).
 *
 * `exchange` hands one HTTP request's messages to the server and resolves with the answers to its
 * requests once they are all there. The HTTP rules (Accept, Content-Type, parsing, protocol version)
 * are mcp-http.ts's. As in the SDK's JSON mode, what the server sends besides answers (progress or
 * log notifications) has no stream to go to and is dropped.
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
    if (id === undefined || !current?.ids.includes(id)) {
      throw new Error(`No connection established for request ID: ${String(id)}`);
    }
    current.responses.set(id, message);
    if (current.ids.every((one) => current.responses.has(one))) {
      this.#current = null;
      current.resolve(current.ids.map((one) => current.responses.get(one) as JSONRPCMessage));
    }
  }

  /**
   * Delivers one HTTP request's messages. With requests among them, resolves with their answers;
   * with notifications or responses only, with none at once (the HTTP answer is then 202).
   */
  exchange(messages: readonly JSONRPCMessage[], extra: MessageExtraInfo): Promise<JSONRPCMessage[]> {
    if (this.#current) throw new Error('JsonExchangeTransport: one exchange at a time');
    const ids = [...new Set(messages.filter(isRequest).map((m) => (m as { id: RequestId }).id))];
    if (ids.length === 0) {
      for (const message of messages) this.onmessage?.(message, extra);
      return Promise.resolve([]);
    }
    return new Promise((resolve) => {
      this.#current = { ids, responses: new Map(), resolve };
      for (const message of messages) this.onmessage?.(message, extra);
    });
  }
}
