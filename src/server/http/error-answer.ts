import { HTTPException } from 'hono/http-exception';
import type { ApiErrorBody } from '@/contracts/errors.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';

export interface ErrorAnswer {
  status: number;
  body: ApiErrorBody;
  headers: Record<string, string>;
}

/**
 * What the app answers for an error (its `onError`, and the answers written below Hono):
 * `{ error, message, ...details }` with the code's status; anything unexpected is logged and is a 500.
 */
export function errorAnswer(
  error: unknown,
  logger: Logger,
  request: { method: string; path: string },
): ErrorAnswer {
  if (error instanceof AppError) {
    const headers: Record<string, string> = {};
    if (error.code === 'RATE_LIMITED' && typeof error.details.retryAfter === 'number') {
      headers['Retry-After'] = String(error.details.retryAfter);
    }
    return {
      status: error.status,
      body: { error: error.code, message: error.message, ...error.details },
      headers,
    };
  }
  if (error instanceof HTTPException && error.status < 500) {
    return { status: error.status, body: { error: 'VALIDATION_ERROR', message: error.message }, headers: {} };
  }
  logger.error('unhandled error', { ...request, error });
  return { status: 500, body: { error: 'INTERNAL_ERROR', message: 'Something went wrong' }, headers: {} };
}
