import type { Logger } from '@/server/lib/logger.js';
import type { NeighbourSource, Neighbours } from './neighbours.js';

/** The part of the graph module the lock rules use: per file, what it imports and what imports it. */
export interface GraphNeighbours {
  neighbours(
    repo: { id: string; repoPath: string },
    branch: string,
    paths: readonly string[],
    head?: string,
  ): Promise<Record<string, Neighbours>>;
}

/**
 * Neighbours from the import graph of the project's branch head. A graph that cannot be built
 * (a branch without commits, a build past its bounds) gives no neighbours and a warning: the
 * DIRECT rules still hold, and an agent is never refused for a graph it cannot see. A branch
 * that does not exist has no neighbours.
 */
export function graphNeighbourSource(graphs: GraphNeighbours, logger: Logger): NeighbourSource {
  return {
    async neighbours(repo, branch, paths) {
      // No such branch (the call read its head): it has no graph, and nothing to warn about.
      if (repo.head === null) return { imports: [], importedBy: [] };
      const imports = new Set<string>();
      const importedBy = new Set<string>();
      try {
        const perFile = await graphs.neighbours(
          { id: repo.id, repoPath: repo.repoPath },
          branch,
          paths,
          repo.head,
        );
        for (const entry of Object.values(perFile)) {
          for (const file of entry.imports) imports.add(file);
          for (const file of entry.importedBy) importedBy.add(file);
        }
      } catch (error) {
        logger.warn('import graph unavailable; answering without neighbours', {
          projectId: repo.id,
          branch,
          error,
        });
      }
      return { imports: [...imports].sort(), importedBy: [...importedBy].sort() };
    },
  };
}
