import { ApiError, errorMessage, isApiError } from '@/web/lib/api-client';

/** What a person can do about each of the services API's error codes. */
const READABLE: Record<string, string> = {
  service_already_running: 'It is already running.',
  service_not_running: 'It is not running.',
  service_is_passive:
    'This is a passive service: something outside AutoCoder starts it, AutoCoder only proxies to it.',
  service_no_port: 'This service declares no http or https port, so there is nothing to preview.',
  service_not_found: 'Its file is no longer in .discobot/services/ of this workspace.',
  WORKSPACE_NOT_FOUND:
    'This workspace is gone: the run’s worktree was removed (approved, failed or deleted).',
  SANDBOX_DISABLED:
    'This server runs no repository code (AUTOCODER_SANDBOX=off), so it cannot start services.',
  VALIDATION_ERROR: 'That is not a valid service id.',
};

/** A services API error with a message a person can act on (the server's own message otherwise). */
export function readableServiceError(error: unknown): unknown {
  if (!isApiError(error)) return error;
  const message = READABLE[error.code];
  if (!message) return error;
  return new ApiError(error.status, { error: error.code, message });
}

export function serviceErrorMessage(error: unknown): string {
  return errorMessage(readableServiceError(error));
}
