/** What every removed secret is replaced with. */
export const REDACTED = '[REDACTED]';

/**
 * Patterns of credentials that must never reach an error message or a log line, even when we were not told the
 * exact value (a key typed by the user, echoed back by a proxy, or an operator key from another provider).
 */
const SECRET_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…) and look-alike keys.
  [/\bsk-[A-Za-z0-9_-]{6,}/g, REDACTED],
  // Authorization headers and bearer tokens anywhere in a message.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/gi, `$1 ${REDACTED}`],
  // Header or query forms: x-api-key: …, "api_key": "…", x-anthropic-key=…
  [
    /\b((?:x-(?:api|anthropic|openai)-key|api[_-]?key|access[_-]?token|authorization)["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b)[^\s"',;&}]{4,}/gi,
    `$1${REDACTED}`,
  ],
];

/**
 * Removes secrets from a text: every exact value in `secrets` (the keys we hold), then anything shaped like an API
 * key or bearer token. Safe to call on text that holds none.
 */
export function redactSecrets(text: string, secrets: ReadonlyArray<string | null | undefined> = []): string {
  let out = text;
  // Longest first, so a key that contains another known value is removed whole.
  const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8);
  known.sort((a, b) => b.length - a.length);
  for (const secret of known) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
