/** True when a database error (PGlite, pg, or drizzle's wrapper around either) is a unique violation. */
export function isUniqueViolation(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    if (typeof current === 'object' && 'code' in current && (current as { code: unknown }).code === '23505')
      return true;
    current =
      typeof current === 'object' && 'cause' in current ? (current as { cause: unknown }).cause : undefined;
  }
  return false;
}
