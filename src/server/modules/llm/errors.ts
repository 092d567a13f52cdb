import {
  APIError as AnthropicApiError,
  APIConnectionError as AnthropicConnectionError,
  APIUserAbortError as AnthropicUserAbortError,
} from '@anthropic-ai/sdk';
import {
  APIError as OpenAiApiError,
  APIConnectionError as OpenAiConnectionError,
  APIUserAbortError as OpenAiUserAbortError,
} from 'openai';
import { LlmError, type LlmErrorKind } from './provider.js';
import { redactSecrets } from './redact.js';

/** What the provider knew when the call failed, beyond the error itself. */
export interface FailureContext {
  /** Shown first in every message, e.g. "Anthropic". */
  label: string;
  /** The caller's signal fired: this was a cancellation, whatever the SDK threw. */
  aborted: boolean;
  /** Our idle timer fired (no data from the provider for this many ms). */
  timedOutAfterMs?: number;
  /** Values to remove from the message (the keys in use). */
  secrets: ReadonlyArray<string | undefined>;
  /**
   * False for an endpoint a user may have chosen: its answers are not repeated (they could be any
   * internal page), only the status and a fixed description. True by default.
   */
  quoteBody?: boolean;
}

/** What an error of each kind is called when the endpoint's own words are not repeated. */
const FIXED_DESCRIPTIONS: Record<LlmErrorKind, string> = {
  auth: 'the endpoint refused the credentials',
  rate_limit: 'rate limited by the endpoint',
  overloaded: 'the endpoint is overloaded',
  server: 'the endpoint failed',
  network: 'the endpoint timed out',
  bad_request: 'the endpoint refused the request',
  aborted: 'the request was cancelled',
};

/** Error `type` strings (Anthropic's, also sent by many OpenAI-compatible servers) → kind. */
const TYPE_KINDS: Record<string, LlmErrorKind> = {
  authentication_error: 'auth',
  permission_error: 'auth',
  rate_limit_error: 'rate_limit',
  overloaded_error: 'overloaded',
  api_error: 'server',
  server_error: 'server',
  timeout_error: 'network',
  invalid_request_error: 'bad_request',
  not_found_error: 'bad_request',
  request_too_large: 'bad_request',
};

/** The status an error type stands for, when a mid-stream error event carries only the type. */
const TYPE_STATUSES: Record<string, number> = {
  authentication_error: 401,
  permission_error: 403,
  rate_limit_error: 429,
  overloaded_error: 529,
  api_error: 500,
  invalid_request_error: 400,
  not_found_error: 404,
};

/** HTTP status → kind. 529 is Anthropic's "overloaded"; 408 and 409 are worth another try. */
export function kindForStatus(status: number): LlmErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 529) return 'overloaded';
  if (status === 408) return 'network';
  if (status === 409 || status >= 500) return 'server';
  return 'bad_request';
}

function isApiError(error: unknown): error is AnthropicApiError | OpenAiApiError {
  return error instanceof AnthropicApiError || error instanceof OpenAiApiError;
}

function isConnectionError(error: unknown): boolean {
  return error instanceof AnthropicConnectionError || error instanceof OpenAiConnectionError;
}

function isUserAbort(error: unknown): boolean {
  return error instanceof AnthropicUserAbortError || error instanceof OpenAiUserAbortError;
}

/** A status carried by a mid-stream error body, where servers put one (`code: 429` or `"429"`). */
function statusOfCode(code: unknown): number | undefined {
  const n = typeof code === 'number' ? code : typeof code === 'string' ? Number(code) : Number.NaN;
  return Number.isInteger(n) && n >= 400 && n < 600 ? n : undefined;
}

/** `retry-after-ms` or `retry-after` (seconds or an HTTP date) from an error response. */
function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * "429 rate_limit_error: Number of requests exceeded" — from the body's own message where there is one, instead
 * of the SDK's default (which quotes the whole JSON body for an Anthropic error).
 */
function describeApiError(error: AnthropicApiError | OpenAiApiError): string {
  type Part = { message?: unknown; type?: unknown };
  const body = error.error as (Part & { error?: Part }) | undefined;
  const inner: Part | undefined = body?.error ?? body;
  const message = typeof inner?.message === 'string' ? inner.message : error.message;
  const type =
    typeof error.type === 'string' ? error.type : typeof inner?.type === 'string' ? inner.type : '';
  const head = [error.status, type].filter(Boolean).join(' ');
  return head && !message.startsWith(head) ? `${head}: ${message}` : message;
}

function classifyApiError(error: AnthropicApiError | OpenAiApiError): {
  kind: LlmErrorKind;
  status?: number;
} {
  if (typeof error.status === 'number') return { kind: kindForStatus(error.status), status: error.status };
  // An error event inside a stream: no HTTP status, only the body's type (and, from some servers, a code).
  const type = typeof error.type === 'string' ? error.type : undefined;
  const code = statusOfCode((error as { code?: unknown }).code);
  if (type && TYPE_KINDS[type]) return { kind: TYPE_KINDS[type], status: code ?? TYPE_STATUSES[type] };
  if (code) return { kind: kindForStatus(code), status: code };
  return { kind: 'server' };
}

/**
 * Turns whatever an SDK call threw into an LlmError whose message holds no secret. An error that is already an
 * LlmError passes through; cancellation wins over every other cause.
 */
export function toLlmError(error: unknown, ctx: FailureContext): LlmError {
  const clean = (text: string) => redactSecrets(`${ctx.label}: ${text}`, ctx.secrets);
  if (error instanceof LlmError) return error;
  if (ctx.aborted || isUserAbort(error)) return new LlmError('aborted', clean('the request was cancelled'));
  if (ctx.timedOutAfterMs !== undefined) {
    return new LlmError('network', clean(`no data from the provider for ${ctx.timedOutAfterMs} ms`));
  }
  if (isConnectionError(error)) {
    const cause = (error as Error).cause;
    const detail = cause instanceof Error && cause.message ? ` (${cause.message})` : '';
    return new LlmError('network', clean(`${(error as Error).message}${detail}`));
  }
  if (isApiError(error)) {
    const { kind, status } = classifyApiError(error);
    const description =
      ctx.quoteBody === false
        ? [status, FIXED_DESCRIPTIONS[kind]].filter(Boolean).join(' ')
        : describeApiError(error);
    return new LlmError(kind, clean(description), status, retryAfterMs(error.headers ?? undefined));
  }
  // The socket closed mid-body ("terminated"), a reset, or a malformed SSE frame: the provider's side failed.
  const message = (error instanceof Error ? error.message : String(error)) || 'unknown failure';
  if (error instanceof SyntaxError) {
    // A parser's message quotes the text it could not parse.
    const detail = ctx.quoteBody === false ? '' : ` (${message})`;
    return new LlmError('server', clean(`unreadable stream data${detail}`));
  }
  return new LlmError('network', clean(`the connection failed or was cut (${message})`));
}
