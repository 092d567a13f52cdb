// ForceAtlas2 off the main thread, as a worker of our own origin (the page's CSP allows workers from
// 'self' only, so the library's blob: worker is not an option). It lays the graph out in batches for
// at most `budgetMs`. Positions go to the page only once it has drawn the previous ones (`drawn`), so
// a page slow to draw a big graph is never buried under updates; a `stop` message ends it between
// batches.
import Graph from 'graphology';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import type { LayoutRequest, LayoutUpdate } from './force-layout-protocol';

interface WorkerScope {
  onmessage: ((event: MessageEvent<LayoutRequest | { type: 'stop' | 'drawn' }>) => void) | null;
  postMessage(message: LayoutUpdate, transfer: Transferable[]): void;
}
const scope = self as unknown as WorkerScope;

/** A batch of iterations should take about this long, so positions flow and `stop` is heard. */
const BATCH_MS = 40;

let stopped = false;
/** The page has not drawn the last positions sent yet. */
let drawing = false;

async function lay(request: LayoutRequest) {
  const graph = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
  const order = request.ids.length;
  for (let i = 0; i < order; i++) {
    graph.addNode(request.ids[i], {
      x: request.positions[2 * i],
      y: request.positions[2 * i + 1],
      size: request.sizes[i],
    });
  }
  for (let e = 0; e < request.edges.length; e += 2) {
    const source = request.ids[request.edges[e] as number];
    const target = request.ids[request.edges[e + 1] as number];
    if (source !== undefined && target !== undefined && !graph.hasEdge(source, target))
      graph.addEdge(source, target);
  }
  const settings = { ...forceAtlas2.inferSettings(graph), barnesHutOptimize: order > 1_000 };
  const deadline = performance.now() + request.budgetMs;
  let iterations = 1;
  // At least one batch; the one that ends past the deadline (or after `stop`) is sent as the last.
  for (;;) {
    const started = performance.now();
    forceAtlas2.assign(graph, { iterations, settings });
    const took = performance.now() - started;
    iterations = Math.max(1, Math.min(200, Math.round((iterations * BATCH_MS) / Math.max(took, 1))));
    const last = stopped || performance.now() >= deadline;
    if (!drawing || last) {
      const positions = new Float32Array(order * 2);
      let i = 0;
      graph.forEachNode((_node, attributes) => {
        positions[i++] = attributes.x as number;
        positions[i++] = attributes.y as number;
      });
      drawing = true;
      scope.postMessage({ positions, done: last }, [positions.buffer]);
      if (last) return;
    }
    // Let a `stop` message in between batches.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

scope.onmessage = (event) => {
  if (event.data.type === 'stop') stopped = true;
  else if (event.data.type === 'drawn') drawing = false;
  else if (event.data.type === 'start') void lay(event.data);
};
