import path from 'node:path';

/**
 * Normalises a repository-relative path and refuses anything that could leave the
 * repository or touch git's own files: absolute paths, `..` segments, `.git/`, NUL
 * and backslashes. Returns the normalised path or null.
 */
export function safeRelativePath(input: string): string | null {
  if (!input || input.length > 4096 || input.includes('\0') || input.includes('\\')) return null;
  if (path.posix.isAbsolute(input) || /^[a-zA-Z]:/.test(input)) return null;
  const segments = input.split('/');
  if (segments.some((segment) => segment === '..')) return null;
  const normalised = path.posix.normalize(input).replace(/\/+$/, '');
  if (normalised === '' || normalised === '.' || normalised.startsWith('../')) return null;
  const first = normalised.split('/')[0]?.toLowerCase();
  if (first === '.git') return null;
  return normalised;
}
