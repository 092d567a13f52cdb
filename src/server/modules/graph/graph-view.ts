import type { GraphEdge, GraphLock, GraphNode, GraphResponse } from '@/contracts/graph.js';
import type { GraphRepo, GraphService } from './graph-service.js';
import { type GraphSnapshot, graphWarnings } from './graph-snapshot.js';

/**
 * The locks of a project's branch, by file path, to overlay on its graph. The seam for the lock
 * store: until it is wired, `noLocks`.
 */
export type LocksFor = (
  projectId: string,
  branch: string,
) => Promise<Record<string, GraphLock>> | Record<string, GraphLock>;

export const noLocks: LocksFor = () => ({});

type Drawing = Pick<GraphResponse, 'nodes' | 'edges' | 'warnings'>;

/** Nodes and edges depend on the commit only: drawn once per snapshot. */
const drawings = new WeakMap<GraphSnapshot, Drawing>();

function draw(graph: GraphSnapshot): Drawing {
  const cached = drawings.get(graph);
  if (cached) return cached;
  const ids = new Set<string>();
  const edges: GraphEdge[] = [];
  for (const [source, record] of graph.sources) {
    ids.add(source);
    for (const target of record.targets) {
      ids.add(target);
      edges.push({ source, target, type: 'import' });
    }
  }
  const nodes: GraphNode[] = [...ids].sort().map((id) => ({ id, type: 'file' }));
  edges.sort((a, b) => (a.source === b.source ? cmp(a.target, b.target) : cmp(a.source, b.source)));
  const drawing = { nodes, edges, warnings: graphWarnings(graph) };
  drawings.set(graph, drawing);
  return drawing;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * GET /api/graph's answer: the files (parsed sources and the files they import) and imports of
 * the branch's head, with the locks overlaid and `version` = the head commit.
 */
export async function graphView(
  graphs: GraphService,
  repo: GraphRepo,
  branch: string,
  locksFor: LocksFor,
): Promise<GraphResponse> {
  const graph = await graphs.current(repo, branch);
  const locks = await locksFor(repo.id, branch);
  return { ...draw(graph), locks, version: graph.version };
}
