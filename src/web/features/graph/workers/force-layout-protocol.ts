/** What the page sends the layout worker: the graph as arrays, and how long it may work. */
export interface LayoutRequest {
  type: 'start';
  ids: string[];
  /** x0, y0, x1, y1… in the order of `ids`. */
  positions: Float32Array;
  sizes: Float32Array;
  /** Source and target index pairs. */
  edges: Uint32Array;
  budgetMs: number;
}

/** A batch done: every node's position, in the order of `ids`; `done` on the last one. */
export interface LayoutUpdate {
  positions: Float32Array;
  done: boolean;
}
