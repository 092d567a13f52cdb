import type Graph from 'graphology';
import type { LayoutRequest, LayoutUpdate } from './force-layout-protocol';

export interface ForceLayout {
  /** Ends the layout where it is (the last positions stay). */
  stop(): void;
}

/**
 * Lays `graph` out with ForceAtlas2 in a worker for at most `budgetMs`, moving its nodes as batches
 * come back (Sigma redraws on each, and the worker sends no more until that is drawn). `onDone` is
 * called once, when it ends or is stopped.
 */
export function startForceLayout(graph: Graph, budgetMs: number, onDone: () => void): ForceLayout {
  const ids = graph.nodes();
  const index = new Map(ids.map((id, i) => [id, i]));
  const positions = new Float32Array(ids.length * 2);
  const sizes = new Float32Array(ids.length);
  ids.forEach((id, i) => {
    const attributes = graph.getNodeAttributes(id);
    positions[2 * i] = attributes.x as number;
    positions[2 * i + 1] = attributes.y as number;
    sizes[i] = (attributes.size as number) ?? 1;
  });
  const edges = new Uint32Array(graph.size * 2);
  let e = 0;
  graph.forEachEdge((_edge, _attributes, source, target) => {
    edges[e++] = index.get(source) ?? 0;
    edges[e++] = index.get(target) ?? 0;
  });

  const worker = new Worker(new URL('./force-layout.worker.ts', import.meta.url), { type: 'module' });
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    worker.terminate();
    onDone();
  };
  worker.onmessage = (event: MessageEvent<LayoutUpdate>) => {
    if (finished) return;
    const { positions: at, done } = event.data;
    graph.updateEachNodeAttributes((id, attributes) => {
      const i = index.get(id);
      if (i === undefined) return attributes;
      return { ...attributes, x: at[2 * i] as number, y: at[2 * i + 1] as number };
    });
    if (done) finish();
    // The next positions once these are on screen (Sigma draws on the next frame).
    else requestAnimationFrame(() => requestAnimationFrame(() => worker.postMessage({ type: 'drawn' })));
  };
  worker.onerror = finish;
  const request: LayoutRequest = { type: 'start', ids, positions, sizes, edges, budgetMs };
  worker.postMessage(request, [positions.buffer, sizes.buffer, edges.buffer]);
  return { stop: finish };
}
