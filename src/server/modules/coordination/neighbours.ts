/** The import-graph neighbours of some files, as the coordination rules need them. */
export interface Neighbours {
  /** Files the given files import. */
  imports: string[];
  /** Files that import the given files. */
  importedBy: string[];
}

/** The project whose repository the neighbours are read from (the rules have its row already). */
export interface NeighbourRepo {
  id: string;
  repoPath: string;
  /** The branch's head as the call read it (null: no such branch); the source reads it when left out. */
  head?: string | null;
}

/**
 * Where neighbours come from: the import graph of a project's branch at its head (the `graph`
 * module). Paths are repository-relative; the given files themselves may appear in the answer.
 */
export interface NeighbourSource {
  neighbours(repo: NeighbourRepo, branch: string, paths: readonly string[]): Promise<Neighbours>;
}
