import { ERROR_CODES, type ErrorCode } from '@/contracts/errors.js';

/** The one error type modules throw. `onError` turns it into `{ error: code, message, ...details }`. */
export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'AppError';
    this.status = ERROR_CODES[code];
  }
}

export const notFound = (
  code: 'PROJECT_NOT_FOUND' | 'TASK_NOT_FOUND' | 'FILE_NOT_FOUND' | 'NOT_FOUND',
  what: string,
) => new AppError(code, `${what} not found`);
