import { describe, expect, it } from 'vitest';
import { createLogger } from '@/server/lib/logger.js';
import { type GraphNeighbours, graphNeighbourSource } from './graph-neighbours.js';

/** A graph that records what it was asked, answering one edge per file. */
function recordingGraph() {
  const asked: { branch: string; head: string | undefined }[] = [];
  const graphs: GraphNeighbours = {
    async neighbours(_repo, branch, paths, head) {
      asked.push({ branch, head });
      return Object.fromEntries(paths.map((p) => [p, { imports: [`${p}.dep`], importedBy: [] }]));
    },
  };
  return { graphs, asked };
}

const repo = { id: 'p1', repoPath: '/nowhere' };

describe('graphNeighbourSource', () => {
  it('reads the graph at the head the call read', async () => {
    const { graphs, asked } = recordingGraph();
    const source = graphNeighbourSource(graphs, createLogger('silent'));
    const answer = await source.neighbours({ ...repo, head: 'abc' }, 'main', ['a.ts']);
    expect(answer).toEqual({ imports: ['a.ts.dep'], importedBy: [] });
    expect(asked).toEqual([{ branch: 'main', head: 'abc' }]);
  });

  it('lets the graph read the head when the call did not', async () => {
    const { graphs, asked } = recordingGraph();
    const source = graphNeighbourSource(graphs, createLogger('silent'));
    await source.neighbours(repo, 'main', ['a.ts']);
    expect(asked).toEqual([{ branch: 'main', head: undefined }]);
  });

  it('answers no neighbours for a branch that does not exist, without asking the graph', async () => {
    const { graphs, asked } = recordingGraph();
    const source = graphNeighbourSource(graphs, createLogger('silent'));
    const answer = await source.neighbours({ ...repo, head: null }, 'nope', ['a.ts']);
    expect(answer).toEqual({ imports: [], importedBy: [] });
    expect(asked).toEqual([]);
  });
});
