import { closeSync, linkSync, mkdirSync, openSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { yieldTurn } from '@/server/lib/yield-turn.js';

/**
 * The files of one graph's commit on disk, for oxc-resolver (which reads a real file system):
 * every file of the tree as an empty placeholder, except JSON files (package.json, tsconfig and
 * what they extend), written with their content. Sources are parsed from git's blobs in memory,
 * never from here, so nothing a worktree holds uncommitted can reach the graph.
 *
 * The parent folder holds an empty `tsconfig.json` so that the resolver's search for the nearest
 * tsconfig stops there and never reads one of this server's own folders.
 *
 * Placeholders are hard links to one empty file (in `<root>.empty/`, outside the tree): a link
 * costs the file system a name, where a new file costs it an inode too — for 10,000 files, 0.1 s
 * instead of 0.3 s to 5 s of a busy machine's kernel time. Nothing writes into a placeholder: a
 * path that gets content is unlinked first. They are made with synchronous calls, a few hundred
 * between two turns of the event loop (a promise per file cost more than the file).
 */
export class Mirror {
  readonly #emptyDir: string;
  /** The empty file placeholders link to; the next one when it has as many links as ext4 allows. */
  #empty: { index: number; path: string } | null = null;

  constructor(readonly root: string) {
    this.#emptyDir = `${root}.empty`;
  }

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
    let count = 0;
    for (const [file, content] of files) {
      const dir = path.posix.dirname(file);
      if (dir !== '.' && !made.has(dir)) {
        made.add(dir);
        mkdirSync(path.join(this.root, dir), { recursive: true });
      }
      const target = `${this.root}/${file}`;
      if (content) {
        removeFile(target);
        writeFileSync(target, content);
      } else {
        this.#placeholder(target);
      }
      if (++count % 64 === 0) {
        const pause = yieldTurn();
        if (pause) await pause;
        signal?.throwIfAborted();
      }
    }
  }

  #placeholder(target: string) {
    for (let attempt = 0; ; attempt++) {
      this.#empty ??= this.#newEmpty(0);
      try {
        linkSync(this.#empty.path, target);
        return;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (attempt > 2) throw error;
        if (code === 'EEXIST') removeFile(target);
        else if (code === 'EMLINK') this.#empty = this.#newEmpty(this.#empty.index + 1);
        // The empty file is gone (the mirror was destroyed and is being built again).
        else if (code === 'ENOENT') this.#empty = null;
        else throw error;
      }
    }
  }

  #newEmpty(index: number): { index: number; path: string } {
    mkdirSync(this.#emptyDir, { recursive: true });
    const file = path.join(this.#emptyDir, String(index));
    closeSync(openSync(file, 'a'));
    return { index, path: file };
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
    await rm(this.#emptyDir, { recursive: true, force: true });
  }

  /** The repository path of an absolute path inside the mirror, or null when it lies outside. */
  relative(absolute: string): string | null {
    if (absolute.startsWith(this.root) && absolute[this.root.length] === '/' && !absolute.includes('/.')) {
      return absolute.slice(this.root.length + 1);
    }
    const rel = path.relative(this.root, absolute);
    if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return null;
    return rel.split(path.sep).join('/');
  }
}

function removeFile(file: string) {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
