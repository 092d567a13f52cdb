import type { Context } from 'hono';
import type { z } from 'zod';
import { AppError } from './errors.js';

/** Turns zod issues into `{ "dotted.path": [messages] }`; "" is the body as a whole. */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.map(String).join('.');
    const messages =
      issue.code === 'unrecognized_keys' ? [`Unknown field(s): ${issue.keys.join(', ')}`] : [issue.message];
    fields[key] = [...(fields[key] ?? []), ...messages];
  }
  return fields;
}

/** Parses a value with a schema or throws a 400 VALIDATION_ERROR naming every bad field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError('VALIDATION_ERROR', 'Invalid input', { fields: fieldErrors(result.error) });
  }
  return result.data;
}

/** Deepest nesting of arrays and objects a request body may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * True when the JSON text nests arrays/objects deeper than `max`. One linear pass, so it can run
 * before JSON.parse: a body of 100k `[` must not reach the (recursive) schema check.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}

/** Reads the JSON body of a request; malformed or too deeply nested JSON is a 400 INVALID_JSON, never a 500. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    const text = await c.req.text();
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      throw new AppError('INVALID_JSON', `Request body nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    body = text.trim() === '' ? {} : JSON.parse(text);
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('INVALID_JSON', 'Request body is not valid JSON');
  }
  return parseWith(schema, body);
}

/** Parses the query string with a schema (single values only). */
export function readQuery<S extends z.ZodType>(c: Context, schema: S): z.output<S> {
  return parseWith(schema, c.req.query());
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Reads a path parameter that must be a UUID; anything else is a 400 naming the parameter. */
export function readId(c: Context, name: string, label: string): string {
  const value = c.req.param(name) ?? '';
  if (!UUID.test(value))
    throw new AppError('VALIDATION_ERROR', `Invalid ${label} id`, {
      fields: { [name]: [`Invalid ${label} id`] },
    });
  return value.toLowerCase();
}
