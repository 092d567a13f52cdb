import type { JsResolver } from './js-resolve.js';
import type { Mirror } from './mirror.js';

export interface GraphLimits {
  /** Larger files are nodes without edges. */
  maxFileBytes: number;
  /** Source files parsed at most; past it the graph is truncated (in path order) with a warning. */
  maxSourceFiles: number;
  /** Files of the tree at most (placeholders on disk). */
  maxTreeFiles: number;
}

export const DEFAULT_LIMITS: GraphLimits = {
  maxFileBytes: 1024 * 1024,
  maxSourceFiles: 50_000,
  maxTreeFiles: 200_000,
};

/** What a build works with: the repository, the mirror and resolver of this (project, branch). */
export interface BuildContext {
  repo: string;
  mirror: Mirror;
  resolver: JsResolver;
  limits: GraphLimits;
  signal?: AbortSignal;
}
