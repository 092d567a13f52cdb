import path from 'node:path';
import { gitText } from '@/server/lib/git.js';
import type { NeighbourSource } from '../neighbours.js';

const SPECIFIER = /(?:import|export)[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g;
const EXTENSIONS = ['', '.ts', '.tsx', '.js', '/index.ts'];

/**
 * A real but tiny import graph for tests of the NEIGHBOR rules until the graph module is wired in:
 * relative ES imports of the branch head's files in the project's repository, read through git.
 */
export function tinyGraph(): NeighbourSource {
  return {
    async neighbours({ repoPath: repo }, branch, paths) {
      const files = (await gitText(['ls-tree', '-r', '--name-only', `refs/heads/${branch}`], { cwd: repo }))
        .split('\n')
        .filter(Boolean);
      const known = new Set(files);
      const edges: [string, string][] = [];
      for (const file of files) {
        const text = await gitText(['show', `refs/heads/${branch}:${file}`], { cwd: repo });
        for (const match of text.matchAll(SPECIFIER)) {
          const base = path.posix.join(path.posix.dirname(file), match[1] ?? '').replace(/\.js$/, '');
          const target = EXTENSIONS.map((ext) => base + ext).find((candidate) => known.has(candidate));
          if (target) edges.push([file, target]);
        }
      }
      const wanted = new Set(paths);
      return {
        imports: edges.filter(([from]) => wanted.has(from)).map(([, to]) => to),
        importedBy: edges.filter(([, to]) => wanted.has(to)).map(([from]) => from),
      };
    },
  };
}
