import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@/server/lib/errors.js';
import type { Logger } from '@/server/lib/logger.js';
import { readBranchHead } from '../workspace/refs.js';
import { type BuildContext, DEFAULT_LIMITS, type GraphLimits } from './build-context.js';
import { buildCold, buildIncremental } from './graph-build.js';
import { type GraphSnapshot, neighboursIn } from './graph-snapshot.js';
import { JsResolver } from './js-resolve.js';
import { Mirror } from './mirror.js';

/** A project's repository, as the graph needs it. */
export interface GraphRepo {
  id: string;
  repoPath: string;
}

export interface Neighbours {
  imports: string[];
  importedBy: string[];
}

export interface GraphServiceOptions {
  dataDir: string;
  logger: Logger;
  limits?: Partial<GraphLimits>;
  /** Graphs kept in memory (and mirrors on disk), least recently used dropped first. */
  maxGraphs?: number;
  /** A build that takes longer fails (GRAPH_UNAVAILABLE); the next request starts a cold one. */
  buildTimeoutMs?: number;
}

interface Entry {
  key: string;
  repo: GraphRepo;
  ctx: BuildContext;
  graph: GraphSnapshot | null;
  /** A build failed half-way: the mirror may be between two commits, so the next build is cold. */
  dirty: boolean;
  building: { commit: string; promise: Promise<GraphSnapshot> } | null;
}

/**
 * The import graphs, one per (project, branch), each of that branch's head. A graph is built when
 * first asked for and updated incrementally when the head moves (`refresh` after a push or a merge
 * starts that in the background). A caller asking for a head still being built waits for that
 * build; builds of one branch run one after another.
 */
export class GraphService {
  readonly #entries = new Map<string, Entry>();
  readonly #limits: GraphLimits;
  readonly #maxGraphs: number;
  readonly #timeoutMs: number;
  readonly #closing = new AbortController();

  constructor(private readonly options: GraphServiceOptions) {
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.#maxGraphs = options.maxGraphs ?? 16;
    this.#timeoutMs = options.buildTimeoutMs ?? 120_000;
  }

  /** The head commit of a branch; 404 BRANCH_NOT_FOUND when there is no such branch. */
  async head(repo: GraphRepo, branch: string): Promise<string> {
    const commit = await readBranchHead(repo.repoPath, branch).catch((error: unknown) => {
      if (error instanceof AppError) return null; // a name git would read as an option
      throw error;
    });
    if (!commit)
      throw new AppError('BRANCH_NOT_FOUND', `No branch ${JSON.stringify(branch)} in this repository`);
    return commit;
  }

  /** The graph of the branch's current head. */
  async current(repo: GraphRepo, branch: string): Promise<GraphSnapshot> {
    return this.at(repo, branch, await this.head(repo, branch));
  }

  /** The graph of `commit` (the branch's head), built or updated first when needed. */
  async at(repo: GraphRepo, branch: string, commit: string): Promise<GraphSnapshot> {
    const entry = this.#entry(repo, branch);
    if (entry.graph?.version === commit) return entry.graph;
    if (entry.building?.commit === commit) return entry.building.promise;
    const before = entry.building?.promise.catch(() => undefined) ?? Promise.resolve();
    const promise = before.then(() => this.#build(entry, commit));
    entry.building = { commit, promise };
    const clear = () => {
      if (entry.building?.promise === promise) entry.building = null;
    };
    promise.then(clear, clear);
    return promise;
  }

  /**
   * What each path imports and what imports it, at the branch's head (for the lock rules:
   * neighbours of a file). A path the graph does not know has no neighbours. `head`: the branch's
   * head as the caller just read it (else it is read here).
   */
  async neighbours(
    repo: GraphRepo,
    branch: string,
    paths: readonly string[],
    head?: string,
  ): Promise<Record<string, Neighbours>> {
    const graph = head ? await this.at(repo, branch, head) : await this.current(repo, branch);
    return Object.fromEntries(paths.map((file) => [file, neighboursIn(graph, file)]));
  }

  /** Brings the branch's graph to its head in the background (after a push, a merge). */
  refresh(repo: GraphRepo, branch: string): void {
    this.current(repo, branch).catch((error: unknown) =>
      this.options.logger.warn('import graph refresh failed', { projectId: repo.id, branch, error }),
    );
  }

  /** Drops a deleted project's graphs and their mirrors. */
  async forgetProject(projectId: string): Promise<void> {
    for (const entry of [...this.#entries.values()]) if (entry.repo.id === projectId) this.#drop(entry);
    await rm(path.join(this.options.dataDir, 'graph', projectId), { recursive: true, force: true });
  }

  close(): void {
    this.#closing.abort();
  }

  #entry(repo: GraphRepo, branch: string): Entry {
    const key = `${repo.id}\0${branch}`;
    let entry = this.#entries.get(key);
    if (entry) {
      // Most recently used last.
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      entry.repo = repo;
      return entry;
    }
    const branchDir = createHash('sha256').update(branch).digest('hex').slice(0, 16);
    const mirror = new Mirror(path.join(this.options.dataDir, 'graph', repo.id, branchDir));
    entry = {
      key,
      repo,
      ctx: { repo: repo.repoPath, mirror, resolver: new JsResolver(mirror), limits: this.#limits },
      graph: null,
      dirty: false,
      building: null,
    };
    this.#entries.set(key, entry);
    for (const [oldKey, old] of this.#entries) {
      if (this.#entries.size <= this.#maxGraphs) break;
      if (oldKey !== key) this.#drop(old);
    }
    return entry;
  }

  #drop(entry: Entry) {
    this.#entries.delete(entry.key);
    const settled = entry.building?.promise.catch(() => undefined) ?? Promise.resolve();
    void settled.then(() => entry.ctx.mirror.destroy()).catch(() => undefined);
  }

  async #build(entry: Entry, commit: string): Promise<GraphSnapshot> {
    if (entry.graph?.version === commit) return entry.graph;
    const signal = AbortSignal.any([AbortSignal.timeout(this.#timeoutMs), this.#closing.signal]);
    const ctx = { ...entry.ctx, repo: entry.repo.repoPath, signal };
    const fields = { projectId: entry.repo.id, commit };
    try {
      const incremental =
        entry.graph && !entry.dirty ? await buildIncremental(ctx, entry.graph, commit) : null;
      const graph = incremental ?? (await buildCold(ctx, commit));
      entry.graph = graph;
      entry.dirty = false;
      this.options.logger.debug('import graph built', {
        ...fields,
        ...graph.stats,
        sources: graph.sources.size,
      });
      return graph;
    } catch (error) {
      entry.dirty = true;
      this.options.logger.warn('import graph build failed', { ...fields, error });
      const why = signal.aborted ? 'took too long' : 'failed';
      throw new AppError(
        'GRAPH_UNAVAILABLE',
        `The import graph of this branch could not be built: it ${why}`,
      );
    }
  }
}
