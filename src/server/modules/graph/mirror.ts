import { mkdir, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * The files of one graph's commit on disk, for oxc-resolver (which reads a real file system):
 * every file of the tree as an empty placeholder, except JSON files (package.json, tsconfig and
 * what they extend), written with their content. Sources are parsed from git's blobs in memory,
 * never from here, so nothing a worktree holds uncommitted can reach the graph.
 *
 * The parent folder holds an empty `tsconfig.json` so that the resolver's search for the nearest
 * tsconfig stops there and never reads one of this server's own folders.
 */
export class Mirror {
  constructor(readonly root: string) {}

  static isContentFile(file: string): boolean {
    return file.endsWith('.json');
  }

  /** Replaces the folder's content with these files. */
  async reset(files: Iterable<[string, Buffer | null]>, signal?: AbortSignal): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
    await mkdir(this.root, { recursive: true });
    await writeFile(path.join(path.dirname(this.root), 'tsconfig.json'), '{}\n');
    await this.write(files, signal);
  }

  /** Writes (or overwrites) files; a null content is an empty placeholder. */
  async write(files: Iterable<[string, Buffer | null]>, signal?: AbortSignal): Promise<void> {
    const made = new Set<string>();
    const pending: [string, Buffer | null][] = [...files];
    // Folders first, each once, parents before children; then the files, 64 at a time.
    for (const [file] of pending) {
      const dir = path.posix.dirname(file);
      if (dir === '.' || made.has(dir)) continue;
      made.add(dir);
      await mkdir(path.join(this.root, dir), { recursive: true });
    }
    for (let i = 0; i < pending.length; i += 64) {
      signal?.throwIfAborted();
      await Promise.all(
        pending
          .slice(i, i + 64)
          .map(([file, content]) => writeFile(path.join(this.root, file), content ?? '', { flag: 'w' })),
      );
    }
  }

  /** Deletes files, then the folders they leave empty (a later file may take a folder's name). */
  async remove(files: Iterable<string>): Promise<void> {
    const dirs = new Set<string>();
    await Promise.all(
      [...files].map((file) => {
        for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) dirs.add(dir);
        return unlink(path.join(this.root, file)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
      }),
    );
    // Deepest first; a folder that still holds something refuses, and that is the answer.
    for (const dir of [...dirs].sort((a, b) => b.length - a.length)) {
      await rmdir(path.join(this.root, dir)).catch(() => undefined);
    }
  }

  async destroy(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }

  /** The repository path of an absolute path inside the mirror, or null when it lies outside. */
  relative(absolute: string): string | null {
    const rel = path.relative(this.root, absolute);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
  }
}
