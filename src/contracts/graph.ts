import { z } from 'zod';

/** GET /api/graph?repo_url=…&branch=… */
export const graphQuerySchema = z.strictObject({
  repo_url: z.string().trim().min(1, 'repo_url is required').max(2048),
  branch: z.string().trim().min(1, 'branch is required').max(255),
});

export type GraphQuery = z.infer<typeof graphQuerySchema>;

/** A file of the repository: a parsed source file, or a file one imports (a JSON file, a stylesheet). */
export interface GraphNode {
  id: string;
  type: 'file';
}

/** `source` imports `target` (import, re-export, dynamic import(), require(), Python import). */
export interface GraphEdge {
  source: string;
  target: string;
  type: 'import';
}

/** A lock overlaid on the graph (seed 003). */
export interface GraphLock {
  user: string;
  user_name?: string;
  status: 'READING' | 'WRITING';
  message: string;
}

/** The answer of GET /api/graph: seed 003's shape, plus warnings about files left without edges. */
export interface GraphResponse {
  nodes: GraphNode[];
  edges: GraphEdge[];
  locks: Record<string, GraphLock>;
  /** The head commit of the branch the graph is of. */
  version: string;
  /** Files that could not be parsed, tsconfig entries ignored, truncation (at most 100 lines). */
  warnings: string[];
}

/**
 * On the project's stream: a branch of the project's repository moved (a push to AutoCoder's remote,
 * an approval's merge, a revert). A graph of that branch is now of an older head: the graph view
 * fetches it again.
 */
export interface HeadMovedData {
  branch: string;
  /** The branch's new head commit. */
  head: string;
  timestamp: number;
}

export type HeadMovedEvent = { type: 'head-moved'; data: HeadMovedData };
