/** The largest request body the API reads (its JSON routes; services' bodies are streamed, unread). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The body's length a request declares, or null when it is chunked or says none (or nonsense). */
export function declaredLength(contentLength: string | undefined, transferEncoding: string | undefined) {
  if (transferEncoding !== undefined || contentLength === undefined) return null;
  return /^\d{1,15}$/.test(contentLength.trim()) ? Number(contentLength) : null;
}
