import type { ApiErrorBody } from '@/contracts/errors';

/** An error answered by the API, or `NETWORK_ERROR` (status 0) when the server could not be reached. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: Record<string, string[]> | undefined;
  readonly allowed: string[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  /** The body's other details (MERGE_CONFLICT's `files`, RUN_BRANCH_GONE's `branch`…), as sent. */
  readonly details: Record<string, unknown>;

  constructor(
    status: number,
    body: Pick<ApiErrorBody, 'message' | 'fields' | 'allowed'> & { error: string; [key: string]: unknown },
    retryAfterSeconds?: number,
  ) {
    super(body.message);
    this.name = 'ApiError';
    this.status = status;
    this.code = body.error;
    this.fields = body.fields;
    this.allowed = body.allowed;
    this.retryAfterSeconds = retryAfterSeconds;
    const { error: _code, message: _message, fields: _fields, allowed: _allowed, ...details } = body;
    this.details = details;
  }

  /** The files a MERGE_CONFLICT names (empty for any other error). */
  get conflictFiles(): string[] {
    const files = this.details.files;
    return Array.isArray(files) ? files.filter((file): file is string => typeof file === 'string') : [];
  }

  /** The first message for a form field, e.g. `fieldError('email')`. */
  fieldError(path: string): string | undefined {
    return this.fields?.[path]?.[0];
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** A message fit for a toast, whatever was thrown. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.code === 'RATE_LIMITED' && error.retryAfterSeconds !== undefined) {
      return `${error.message} Try again in ${error.retryAfterSeconds} s.`;
    }
    return error.message;
  }
  if (error instanceof Error) return error.message;
  return 'Something went wrong';
}

let onUnauthorized: (() => void) | undefined;

/** Called when any request answers 401 UNAUTHORIZED: the session is gone. */
export function setUnauthorizedHandler(handler: (() => void) | undefined): void {
  onUnauthorized = handler;
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | undefined>;
  signal?: AbortSignal;
  /** Extra request headers (the pipeline's provider keys). */
  headers?: Record<string, string>;
}

function buildUrl(path: string, query: RequestOptions['query']): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, value);
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function readErrorBody(response: Response): Promise<ApiErrorBody | undefined> {
  try {
    const body: unknown = await response.json();
    if (body && typeof body === 'object' && 'error' in body && 'message' in body) return body as ApiErrorBody;
  } catch {
    // Not JSON (a proxy's HTML page, an empty body): the caller falls back to a generic message.
  }
  return undefined;
}

/** Calls the AutoCoder API. Resolves with the parsed JSON body (undefined for 204), rejects with ApiError. */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { method = 'GET', body, query, signal, headers } = options;
  let response: Response;
  try {
    response = await fetch(buildUrl(path, query), {
      method,
      credentials: 'same-origin',
      headers: {
        ...headers,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(0, {
      error: 'NETWORK_ERROR',
      message: 'Cannot reach the AutoCoder server. Check that it is running and try again.',
    });
  }

  if (response.ok) {
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  const errorBody = await readErrorBody(response);
  const retryAfter = Number(response.headers.get('retry-after'));
  const error = new ApiError(
    response.status,
    errorBody ?? {
      error: 'HTTP_ERROR',
      message: `The server answered ${response.status} ${response.statusText}`.trim(),
    },
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
  if (response.status === 401 && error.code === 'UNAUTHORIZED') onUnauthorized?.();
  throw error;
}
