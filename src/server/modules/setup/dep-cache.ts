import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inheritedPaths } from '@/server/env.js';
import { runCommand } from '@/server/lib/spawner.js';
import { lockfilesOf } from './setup-detect.js';

/** One installed result kept for a project. */
export interface CacheEntry {
  key: string;
  command: string;
  /** The worktree's top-level entries the setup made (`node_modules`, `.venv`…). */
  paths: string[];
  bytes: number;
  createdAt: string;
  lastUsedAt: string;
}

export interface DepCacheOptions {
  /** Where entries live: `<root>/<projectId>/<key>/{tree,meta.json}` (inside the data dir, hidden from sandboxes). */
  root: string;
  /** A project's entries together, and every project's (AUTOCODER_CACHE_MAX_GB). */
  projectMaxBytes: number;
  totalMaxBytes: number;
  /** A copy into or out of the cache is stopped after this long. */
  copyTimeoutMs?: number;
}

const KEY = /^[0-9a-f]{64}$/;
const PROJECT = /^[0-9a-f-]{36}$/;
/** A top-level entry of a worktree the cache may hold: a plain name, never git's. */
const ENTRY = /^(?!\.git$)(?!\.\.?$)[^/\0]+$/;
const DEFAULT_COPY_TIMEOUT_MS = 10 * 60_000;

function copyEnv() {
  return { PATH: inheritedPaths().path, LANG: 'C' };
}

/**
 * The dependency cache: what a worktree's setup installed, kept per project under a key made of
 * the setup command and the lockfiles' content. A later worktree with the same key gets its own
 * copy (`cp -a --reflink=auto`: copy-on-write where the filesystem has it, a full copy where it
 * does not) — never a directory or an inode shared with another run, so nothing a run does reaches
 * the cache or another run. Least recently used entries go first past the caps.
 */
export class DepCache {
  private readonly inflight = new Map<string, Promise<unknown>>();

  constructor(private readonly options: DepCacheOptions) {}

  /**
   * The key of a worktree's setup: the command and every lockfile at its root (name and content);
   * null when it has no lockfile (nothing stable to key by: the setup runs every time).
   */
  async keyOf(worktree: string, command: string): Promise<string | null> {
    const names = (await readdir(worktree, { withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
    const lockfiles = lockfilesOf(names);
    if (lockfiles.length === 0) return null;
    const hash = createHash('sha256').update(`autocoder-setup-v1\0${command}\0`);
    for (const name of lockfiles) {
      hash.update(`${name}\0`);
      hash.update(await fileHash(path.join(worktree, name)));
      hash.update('\0');
    }
    return hash.digest('hex');
  }

  /**
   * Runs `work` once for a key at a time in this process: a second caller with the same key waits
   * for the first (its outcome is not shared: the caller looks in the cache again after).
   */
  async once<T>(projectId: string, key: string, work: () => Promise<T>): Promise<T> {
    const id = `${projectId}/${key}`;
    for (;;) {
      const running = this.inflight.get(id);
      if (!running) break;
      await running.catch(() => undefined);
    }
    const started = work();
    this.inflight.set(id, started);
    try {
      return await started;
    } finally {
      if (this.inflight.get(id) === started) this.inflight.delete(id);
    }
  }

  /**
   * Copies the key's installed result into the worktree; null when there is none, or when the
   * worktree already has one of its paths (a tracked file or link of that name: the cache never
   * writes through what the repository put there).
   */
  async restore(projectId: string, key: string, worktree: string): Promise<CacheEntry | null> {
    const dir = this.entryDir(projectId, key);
    const meta = await this.readMeta(dir);
    if (!meta) return null;
    for (const name of meta.paths) {
      if (await lstat(path.join(worktree, name)).catch(() => null)) return null;
    }
    // `tree/.`: the tree's contents (path.join would drop the dot and copy the tree itself).
    await this.copy([`${path.join(dir, 'tree')}/.`], worktree);
    const used = { ...meta, lastUsedAt: new Date().toISOString() };
    await writeFile(path.join(dir, 'meta.json'), JSON.stringify(used)).catch(() => undefined);
    return used;
  }

  /** Keeps a copy of `paths` (top-level entries of the worktree) under the key, then evicts past the caps. */
  async save(projectId: string, key: string, worktree: string, command: string, paths: readonly string[]) {
    const names = paths.filter((name) => ENTRY.test(name));
    if (names.length === 0) return;
    // Measured where it is, before anything is copied: an install past the project's cap is not kept.
    const bytes = await this.sizeOf(...names.map((name) => path.join(worktree, name)));
    if (bytes > this.options.projectMaxBytes) return;
    const projectDir = this.projectDir(projectId);
    await mkdir(projectDir, { recursive: true, mode: 0o700 });
    const staging = path.join(projectDir, `.staging-${randomBytes(6).toString('hex')}`);
    try {
      await mkdir(path.join(staging, 'tree'), { recursive: true });
      await this.copy(
        names.map((name) => path.join(worktree, name)),
        path.join(staging, 'tree'),
      );
      const now = new Date().toISOString();
      const meta: CacheEntry = {
        key,
        command,
        paths: names,
        bytes,
        createdAt: now,
        lastUsedAt: now,
      };
      await writeFile(path.join(staging, 'meta.json'), JSON.stringify(meta));
      // Another process may have saved the key meanwhile: its entry stays, this copy goes.
      await rename(staging, this.entryDir(projectId, key)).catch(() => undefined);
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
    await this.evict();
  }

  /** A project's entries, most recently used first, and the caps. */
  async info(projectId: string) {
    const entries = await this.entriesOf(projectId);
    entries.sort((a, b) => b.lastUsedAt.localeCompare(a.lastUsedAt));
    return {
      entries,
      bytes: entries.reduce((sum, entry) => sum + entry.bytes, 0),
      maxBytes: this.options.projectMaxBytes,
      totalMaxBytes: this.options.totalMaxBytes,
    };
  }

  /** Removes every entry of the project, and its package managers' download cache. */
  async clear(projectId: string): Promise<void> {
    await rm(this.projectDir(projectId), { recursive: true, force: true });
    await rm(this.packageCacheRoot(projectId), { recursive: true, force: true });
  }

  /**
   * The project's package-manager download cache (npm, pnpm, yarn, bun, pip, uv, poetry, go,
   * cargo, and what follows XDG_CACHE_HOME), kept between its installs — a new key installs from it where it can instead of the
   * network — and the variables that point each manager at it. One project's installs share it;
   * no other project sees it.
   */
  async packageCache(projectId: string): Promise<{ dir: string; env: Record<string, string> }> {
    const dir = this.packageCacheRoot(projectId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const at = (name: string) => path.join(dir, name);
    return {
      dir,
      env: {
        npm_config_cache: at('npm'),
        // pnpm's store and other tools' caches follow the XDG variables (npm warns about a
        // `store-dir` setting it does not know, so pnpm's is not named directly).
        XDG_CACHE_HOME: at('xdg-cache'),
        XDG_DATA_HOME: at('xdg-data'),
        YARN_CACHE_FOLDER: at('yarn'),
        BUN_INSTALL_CACHE_DIR: at('bun'),
        PIP_CACHE_DIR: at('pip'),
        UV_CACHE_DIR: at('uv'),
        POETRY_CACHE_DIR: at('poetry'),
        GOMODCACHE: at('go-mod'),
        GOCACHE: at('go-build'),
        CARGO_HOME: at('cargo'),
      },
    };
  }

  /** What a workspace's checkout was last set up for (its command and key), kept across restarts. */
  async preparedFor(workspaceId: string): Promise<string | null> {
    return readFile(this.markerFile(workspaceId), 'utf8').catch(() => null);
  }

  async markPrepared(workspaceId: string, marker: string): Promise<void> {
    await mkdir(path.dirname(this.markerFile(workspaceId)), { recursive: true, mode: 0o700 });
    await writeFile(this.markerFile(workspaceId), marker);
  }

  private markerFile(workspaceId: string): string {
    if (!/^[0-9A-Z]{26}$/.test(workspaceId)) throw new Error(`not a workspace id: ${workspaceId}`);
    return path.join(this.options.root, '..', 'workspaces', workspaceId);
  }

  private packageCacheRoot(projectId: string): string {
    if (!PROJECT.test(projectId)) throw new Error(`not a project id: ${projectId}`);
    return path.join(this.options.root, '..', 'packages', projectId);
  }

  /** Least recently used entries go until each project, and all of them, fit their caps. */
  private async evict(): Promise<void> {
    const projects = await readdir(this.options.root).catch(() => [] as string[]);
    const all: (CacheEntry & { projectId: string })[] = [];
    for (const projectId of projects.filter((name) => PROJECT.test(name))) {
      const entries = (await this.entriesOf(projectId)).sort((a, b) =>
        a.lastUsedAt.localeCompare(b.lastUsedAt),
      );
      let bytes = entries.reduce((sum, entry) => sum + entry.bytes, 0);
      while (bytes > this.options.projectMaxBytes && entries.length > 0) {
        const oldest = entries.shift()!;
        bytes -= oldest.bytes;
        await rm(this.entryDir(projectId, oldest.key), { recursive: true, force: true });
      }
      all.push(...entries.map((entry) => ({ ...entry, projectId })));
      // A package manager's download cache past the project's cap goes whole: it only saves downloads.
      const packages = this.packageCacheRoot(projectId);
      if (
        (await lstat(packages).catch(() => null)) &&
        (await this.sizeOf(packages)) > this.options.projectMaxBytes
      ) {
        await rm(packages, { recursive: true, force: true });
      }
    }
    all.sort((a, b) => a.lastUsedAt.localeCompare(b.lastUsedAt));
    let total = all.reduce((sum, entry) => sum + entry.bytes, 0);
    while (total > this.options.totalMaxBytes && all.length > 0) {
      const oldest = all.shift()!;
      total -= oldest.bytes;
      await rm(this.entryDir(oldest.projectId, oldest.key), { recursive: true, force: true });
    }
  }

  private async entriesOf(projectId: string): Promise<CacheEntry[]> {
    const names = await readdir(this.projectDir(projectId)).catch(() => [] as string[]);
    const entries: CacheEntry[] = [];
    for (const name of names.filter((entry) => KEY.test(entry))) {
      const meta = await this.readMeta(this.entryDir(projectId, name));
      if (meta) entries.push(meta);
    }
    return entries;
  }

  private async readMeta(dir: string): Promise<CacheEntry | null> {
    try {
      const meta = JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8')) as CacheEntry;
      return Array.isArray(meta.paths) && meta.paths.every((name) => ENTRY.test(name)) ? meta : null;
    } catch {
      return null;
    }
  }

  private projectDir(projectId: string): string {
    if (!PROJECT.test(projectId)) throw new Error(`not a project id: ${projectId}`);
    return path.join(this.options.root, projectId);
  }

  private entryDir(projectId: string, key: string): string {
    if (!KEY.test(key)) throw new Error(`not a cache key: ${key}`);
    return path.join(this.projectDir(projectId), key);
  }

  /** `cp -a --reflink=auto` (links copied as links, never followed; owners and modes kept). */
  private async copy(sources: string[], target: string): Promise<void> {
    const result = await runCommand({
      command: 'cp',
      args: ['-a', '--reflink=auto', '--', ...sources, `${target}/`],
      env: copyEnv(),
      timeoutMs: this.options.copyTimeoutMs ?? DEFAULT_COPY_TIMEOUT_MS,
      maxOutputBytes: 64 * 1024,
    });
    if (result.code !== 0)
      throw new Error(`copying the dependency cache failed: ${result.stderr.trim().slice(-300)}`);
  }

  /** Bytes of `paths` together (links not followed). */
  private async sizeOf(...paths: string[]): Promise<number> {
    const result = await runCommand({
      command: 'du',
      args: ['-sbc', '--', ...paths],
      env: copyEnv(),
      timeoutMs: 120_000,
      maxOutputBytes: 4096,
    });
    // The last line is the total (`-c`).
    const total = result.stdout.toString('utf8').trim().split('\n').at(-1) ?? '';
    return Number.parseInt(total, 10) || 0;
  }
}

/** A file's SHA-256, read as a stream (a lockfile may be large). */
async function fileHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
