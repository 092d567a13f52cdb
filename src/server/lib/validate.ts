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

/** Reads the JSON body of a request; malformed JSON is a 400 INVALID_JSON, never a 500. */
export async function readJson<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    const text = await c.req.text();
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
