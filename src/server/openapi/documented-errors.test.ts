import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '@/contracts/errors.js';
import { MAX_BODY_BYTES } from '@/server/http/body-size.js';
import { TestClient } from '@/server/testing/test-app.js';
import { ErrorWorld } from './testing/error-world.js';
import { PROJECT_RECIPES } from './testing/project-recipes.js';
import type { Recipe } from './testing/recipe-kit.js';
import { RUN_RECIPES } from './testing/run-recipes.js';

/*
 * Every error code GET /api/openapi.json lists for an operation is one the app answers: for each
 * (operationId, code) a real request gets that status and that code. The codes of the layers in
 * front of every route (host, origin, body size, session, JSON body, bad input, an unexpected
 * failure) are asked of each operation as its shape allows; each code a module answers has its
 * recipe in testing/*-recipes.ts. A code the document gains without a recipe fails here.
 */

interface Parameter {
  name: string;
  in: string;
  schema?: { format?: string };
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: unknown;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Schema {
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  enum?: string[];
}
interface Op {
  operationId: string;
  method: string;
  path: string;
  operation: Operation;
  codes: ErrorCode[];
}

const RECIPES = { ...PROJECT_RECIPES, ...RUN_RECIPES };

const world = await ErrorWorld.create();
afterAll(() => world.close());

const document = (await world.anonymous.get('/api/openapi.json')).body as unknown as {
  paths: Record<string, Record<string, Operation>>;
};

/** The codes an error answer lists: `ApiError` narrowed to an enum of codes. */
function codesOf(operation: Operation): ErrorCode[] {
  return Object.entries(operation.responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, response]) => {
      const schema = response.content?.['application/json']?.schema;
      return (schema?.allOf?.find((part) => part.properties?.error)?.properties?.error?.enum ??
        []) as ErrorCode[];
    });
}

const OPS: Op[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({
    operationId: operation.operationId,
    method: method.toUpperCase(),
    path,
    operation,
    codes: codesOf(operation),
  })),
);

const isUuid = (parameter: Parameter) => parameter.in === 'path' && parameter.schema?.format === 'uuid';

/** The operation's path with ids nobody has (`bad` in place of the first UUID, when given). */
function urlOf(op: Op, bad?: string): string {
  let first = true;
  return op.path.replaceAll(/\{([^}]+)\}/g, (_, name: string) => {
    const parameter = op.operation.parameters?.find((p) => p.name === name && p.in === 'path');
    if (!parameter || !isUuid(parameter)) return 'x';
    const value = bad && first ? bad : crypto.randomUUID();
    first = false;
    return value;
  });
}

/** The recipe of a code every operation of its shape can be asked for, from the operation alone. */
function layerRecipe(op: Op, code: ErrorCode): Recipe | undefined {
  const writes = op.method !== 'GET';
  const body = op.operation.requestBody !== undefined;
  const send = (w: ErrorWorld, payload?: unknown, headers: Record<string, string> = {}) =>
    w.owner.client.request(op.method, urlOf(op), payload, headers);
  switch (code) {
    case 'MISDIRECTED_REQUEST':
      return (w) => send(w, undefined, { host: 'attacker.example' });
    case 'FORBIDDEN_ORIGIN':
      return writes ? (w) => send(w, undefined, { origin: 'http://attacker.example' }) : undefined;
    case 'PAYLOAD_TOO_LARGE':
      return writes ? (w) => send(w, 'x'.repeat(MAX_BODY_BYTES + 1)) : undefined;
    case 'UNAUTHORIZED':
      return (w) => w.anonymous.request(op.method, urlOf(op));
    case 'INVALID_JSON':
      return body ? (w) => send(w, '{"unterminated":') : undefined;
    case 'UNSUPPORTED_MEDIA_TYPE':
      return body ? (w) => send(w, 'plain words', { 'content-type': 'text/plain' }) : undefined;
    case 'VALIDATION_ERROR':
      if (op.operation.parameters?.some(isUuid))
        return (w) => w.owner.client.request(op.method, urlOf(op, 'not-a-uuid'), body ? {} : undefined);
      return body ? (w) => send(w, 42) : undefined;
    case 'INTERNAL_ERROR':
      return (w) => new TestClient(w.failing()).request(op.method, urlOf(op), body ? {} : undefined);
    default:
      return undefined;
  }
}

describe('GET /api/openapi.json lists only errors the app answers', () => {
  it('reads every operation and its codes from the document', () => {
    expect(OPS.length).toBeGreaterThan(50);
    for (const op of OPS) expect(op.codes, op.operationId).toContain('INTERNAL_ERROR');
  });

  it('has no recipe for a code an operation does not document (or for an operation that is gone)', () => {
    const stale = Object.entries(RECIPES).flatMap(([operationId, recipes]) => {
      const op = OPS.find((candidate) => candidate.operationId === operationId);
      return Object.keys(recipes)
        .filter((code) => !op?.codes.includes(code as ErrorCode))
        .map((code) => `${operationId} ${code}`);
    });
    expect(stale).toEqual([]);
  });
});

describe.each(OPS)('$operationId ($method $path)', (op) => {
  it.each(op.codes)('answers %s', async (code) => {
    const recipe = RECIPES[op.operationId]?.[code] ?? layerRecipe(op, code);
    if (!recipe) {
      expect.fail(
        `no recipe: add one for ${op.operationId} ${code} to src/server/openapi/testing/*-recipes.ts`,
      );
    }
    const res = await recipe(world);
    expect({ status: res.status, error: (res.body as { error?: string } | null)?.error }).toEqual({
      status: ERROR_CODES[code],
      error: code,
    });
  });
});
