import type { DiffFile } from '@/contracts/diff';

/**
 * "Viewed" marks, kept per person in the browser: for each file, the fingerprint of its change
 * when it was marked. A file whose change is different now (a new commit touched it) is not
 * viewed any more; the others stay marked across the run's rounds.
 */

export type ViewedMarks = Record<string, string>;

export const viewedStorageKey = (userId: string, taskId: string) =>
  `autocoder:review-viewed:${userId}:${taskId}`;

/** FNV-1a over the file's change: cheap, and a changed patch changes it. */
export function fileFingerprint(file: DiffFile): string {
  const text = `${file.status}\u0000${file.oldPath ?? ''}\u0000${file.additions}/${file.deletions}\u0000${file.patch}`;
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

export function readMarks(key: string): ViewedMarks {
  try {
    const raw = globalThis.localStorage?.getItem(key);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return {};
  }
}

export function writeMarks(key: string, marks: ViewedMarks): void {
  try {
    globalThis.localStorage?.setItem(key, JSON.stringify(marks));
  } catch {
    // Storage full or refused: the marks last as long as the page.
  }
}

export const isViewed = (marks: ViewedMarks, file: DiffFile) => marks[file.path] === fileFingerprint(file);
