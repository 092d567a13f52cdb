import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonRpcMessageOf } from './json-transport.js';

/** Messages near JSON-RPC's edges: ids of every kind, params of every shape, stray keys. */
const id = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.double(), fc.constant(null), fc.boolean());
const params = fc.oneof(
  fc.dictionary(fc.constantFrom('name', 'arguments', 'cursor', '_meta', 'x'), fc.jsonValue({ maxDepth: 2 })),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.string({ maxLength: 3 }),
);
const anyMessage = fc.record(
  {
    jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 5 }, fc.constantFrom('1.0', 2, null)),
    id: fc.oneof({ arbitrary: fc.oneof(fc.string({ maxLength: 3 }), fc.nat()), weight: 3 }, id),
    method: fc.oneof(
      { arbitrary: fc.constantFrom('tools/call', 'initialize', 'ping'), weight: 5 },
      fc.integer(),
    ),
    params: fc.oneof({ arbitrary: fc.record({ name: fc.string({ maxLength: 3 }) }), weight: 3 }, params),
    result: fc.jsonValue({ maxDepth: 1 }),
    error: fc.record({ code: fc.integer(), message: fc.string({ maxLength: 3 }) }),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

/** Requests and notifications as clients send them, with the odd bad field. */
const plain = fc.record(
  {
    jsonrpc: fc.oneof({ arbitrary: fc.constant('2.0'), weight: 9 }, fc.constant('1.0')),
    id: fc.oneof({ arbitrary: fc.oneof(fc.string({ maxLength: 3 }), fc.nat()), weight: 9 }, id),
    method: fc.constantFrom('tools/call', 'initialize', 'notifications/initialized'),
    params: fc.oneof({ arbitrary: fc.record({ name: fc.string({ maxLength: 3 }) }), weight: 5 }, params),
  },
  { requiredKeys: ['jsonrpc', 'method'] },
);
const message = fc.oneof(plain, anyMessage);

describe('jsonRpcMessageOf', () => {
  it('reads every message as the SDK’s schema does: the same message, or a throw', () => {
    let quick = 0;
    fc.assert(
      fc.property(message, (sent) => {
        const value = JSON.parse(JSON.stringify(sent)) as unknown;
        const schema = JSONRPCMessageSchema.safeParse(value);
        let read: unknown;
        try {
          read = jsonRpcMessageOf(value);
        } catch {
          expect(schema.success).toBe(false);
          return;
        }
        expect(schema.success).toBe(true);
        expect(read).toStrictEqual(schema.data);
        if (read === value) quick += 1;
      }),
      { numRuns: 5000, seed: 7 },
    );
    // Not vacuous: many messages are taken as they are.
    expect(quick).toBeGreaterThan(100);
  });
});
