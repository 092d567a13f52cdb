import { AppError } from '@/server/lib/errors.js';

/**
 * A service's id is its file name in `.discobot/services/` (seed 002: `[a-zA-Z0-9_.-]+`), here
 * without a leading dot: `.`, `..` and hidden files are never services, and no id can climb out
 * of the directory.
 */
export const SERVICE_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export const isServiceId = (value: string) => SERVICE_ID.test(value);

/** The id from a URL, or 400 naming it: a path trick (`..`, `a/b`, `%2e%2e`) is never looked up. */
export function checkServiceId(value: string): string {
  if (!isServiceId(value)) {
    throw new AppError('VALIDATION_ERROR', 'Invalid service id', {
      fields: { id: ['A service id is a file name of letters, digits, _, . and -'] },
    });
  }
  return value;
}
