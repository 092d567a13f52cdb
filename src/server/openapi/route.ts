import { createRoute, OpenAPIHono, type RouteConfig, z } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { ERROR_CODES, type ErrorCode } from '@/contracts/errors.js';
import type { AppEnv } from '@/server/deps.js';
import { AppError } from '@/server/lib/errors.js';
import { fieldErrors, jsonNestsDeeperThan, MAX_JSON_DEPTH } from '@/server/lib/validate.js';

/**
 * Who may call a route: anyone, the holder of a session cookie (every router mounted on
 * `protectedApi`), an agent (its bearer token, or a session: `requireAgent`), or the operator's
 * metrics token.
 */
export type Access = 'public' | 'session' | 'agent' | 'metrics-token';

export interface Declared {
  access: Access;
  /** The codes the route's module may answer, beyond those every route of its kind can (see `errorCodesOf`). */
  errors?: readonly ErrorCode[];
}

/**
 * Bad input answers what `parseWith` answers: 400 VALIDATION_ERROR with the bad fields. A path
 * parameter's own message ("Invalid task id") is the message, as `readId` said it.
 */
function validationHook(
  result: { success: true } | { success: false; error: z.ZodError; target: string },
): void {
  if (result.success) return;
  const fields = fieldErrors(result.error);
  const message =
    result.target === 'param' ? (result.error.issues[0]?.message ?? 'Invalid input') : 'Invalid input';
  throw new AppError('VALIDATION_ERROR', message, { fields });
}

/** A router whose routes are declared with their contracts (`app.openapi(route, handler)`). */
export function apiRouter() {
  return new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
}

const JSON_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Runs before the declared body's validator and keeps what `readJson` promised: a body that is not
 * JSON, or nests deeper than MAX_JSON_DEPTH, is a 400 INVALID_JSON (never the validator's generic
 * 400), and an empty body is `{}`. The validator parses the text again from Hono's body cache: a
 * body is at most 1 MiB, and the first parse is what tells malformed JSON apart.
 */
const jsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const type = c.req.header('content-type')?.split(';')[0]?.trim() ?? '';
  const text = await c.req.text();
  const empty = text.trim() === '';
  if (!empty && !JSON_TYPE.test(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as application/json');
  }
  if (empty) {
    // The validator reads JSON only under a JSON content type, through Hono's body cache (which
    // holds promises, whatever its type says); `{}` is what an empty body means.
    if (type) (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve('{}');
  } else {
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      throw new AppError('INVALID_JSON', `Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    try {
      JSON.parse(text);
    } catch {
      throw new AppError('INVALID_JSON', 'Request body is not valid JSON');
    }
  }
  await next();
};

/** A bare `z.string()`: every value passes it (a workspace's id is looked up, never refused). */
const takesAnyString = (schema: unknown) =>
  schema instanceof z.ZodString && (schema.def.checks ?? []).length === 0;

/** Whether some path could fail the declared parameters: not when each of them takes any string. */
const paramsCanFail = (params: unknown) =>
  !(params instanceof z.ZodObject) || !Object.values(params.shape).every(takesAnyString);

/**
 * The codes a route can answer: those of the layers in front of every route (host check, origin
 * check, body limit, session), those of its declared input, and those its module throws.
 */
export function errorCodesOf(config: Pick<RouteConfig, 'method' | 'request'>, declared: Declared) {
  const codes = new Set<ErrorCode>(['MISDIRECTED_REQUEST']);
  const request = config.request;
  if (config.method !== 'get') codes.add('FORBIDDEN_ORIGIN').add('PAYLOAD_TOO_LARGE');
  if (request?.body) codes.add('INVALID_JSON').add('UNSUPPORTED_MEDIA_TYPE').add('VALIDATION_ERROR');
  if (request?.query || (request?.params && paramsCanFail(request.params))) codes.add('VALIDATION_ERROR');
  if (declared.access === 'session' || declared.access === 'agent') codes.add('UNAUTHORIZED');
  for (const code of declared.errors ?? []) codes.add(code);
  codes.add('INTERNAL_ERROR');
  return [...codes];
}

/** The body of every error answer (`ApiErrorBody` in the contracts). */
const ApiError = z
  .looseObject({
    error: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    fields: z
      .record(z.string(), z.array(z.string()))
      .optional()
      .openapi({ description: 'VALIDATION_ERROR: messages by dotted field path ("" for the whole body)' }),
    allowed: z
      .array(z.string())
      .optional()
      .openapi({ description: 'INVALID_TRANSITION: the statuses the task may move to' }),
    retryAfter: z.number().int().optional().openapi({ description: 'RATE_LIMITED: seconds to wait' }),
  })
  .openapi('ApiError');

const errorBodies = new Map<string, ReturnType<typeof ApiError.extend>>();

/**
 * `{ error, message, ...details }` with the codes one status can carry. Built once per set of codes:
 * many routes share a set, and building a schema is what made declaring every route slow at start-up.
 */
function errorBodySchema(codes: [ErrorCode, ...ErrorCode[]]) {
  const key = codes.join(' ');
  let schema = errorBodies.get(key);
  if (!schema) {
    schema = ApiError.extend({ error: z.enum(codes) });
    errorBodies.set(key, schema);
  }
  return schema;
}

function errorResponses(codes: readonly ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERROR_CODES[code], [...(byStatus.get(ERROR_CODES[code]) ?? []), code]);
  const responses: RouteConfig['responses'] = {};
  for (const [status, [first, ...rest]] of byStatus) {
    if (!first) continue;
    responses[status] = {
      description: [first, ...rest].join(', '),
      content: { 'application/json': { schema: errorBodySchema([first, ...rest]) } },
    };
  }
  return responses;
}

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

const SECURITY: Record<Access, RouteConfig['security']> = {
  public: [],
  session: [{ session: [] }],
  agent: [{ agentToken: [] }, { session: [] }],
  'metrics-token': [{ metricsToken: [] }],
};

/**
 * `createRoute` plus what every route of the API declares the same way: its access, its error
 * answers (status, `{ error, message, ...details }` and the codes), and the JSON body reading rule.
 * Its `operationId` is required: generated clients name their methods by it (camelCase, unique
 * across the document; openapi.test.ts checks both).
 */
export function apiRoute<
  P extends string,
  R extends Omit<RouteConfig, 'path' | 'operationId'> & { path: P; operationId: string },
>(config: R, declared: Declared) {
  const responses = { ...config.responses, ...errorResponses(errorCodesOf(config, declared)) };
  return createRoute({
    ...config,
    security: SECURITY[declared.access],
    responses,
    // The route's own middleware (a rate limit) first: it counts bad bodies too.
    middleware: [...asArray(config.middleware), ...(config.request?.body ? [jsonBody] : [])],
  }) as ReturnType<typeof createRoute<P, R>>;
}

/** The route with middleware of the router's own (a rate limit) run before everything it declares. */
export function runningFirst<R extends RouteConfig>(route: R, ...first: MiddlewareHandler<AppEnv>[]): R {
  return { ...route, middleware: [...first, ...asArray(route.middleware)] };
}

/** A JSON request body, required (an empty body reads as `{}`). */
export function jsonRequest<S extends z.ZodType>(schema: S, description?: string) {
  return {
    required: true,
    ...(description ? { description } : {}),
    content: { 'application/json': { schema } },
  } as const;
}

/** A JSON success response. */
export function jsonResponse<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { 'application/json': { schema } } } as const;
}

/** A success response without a body (204). */
export const noContent = { description: 'Done; no body' } as const;

// Without flags: the document states the pattern as written, and JSON Schema patterns have none.
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A path parameter that must be a UUID of `label`; any case is read as lower case. */
export function uuidParam(name: string, label: string) {
  return z
    .string()
    .regex(UUID, `Invalid ${label} id`)
    .overwrite((value) => value.toLowerCase())
    .openapi({ param: { name, in: 'path' }, format: 'uuid', description: `The ${label}'s id` });
}
