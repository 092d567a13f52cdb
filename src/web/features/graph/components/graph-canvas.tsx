import Graph from 'graphology';
import { useEffect, useRef, useState } from 'react';
import Sigma from 'sigma';
import type { NodeDisplayData } from 'sigma/types';
import type { GraphData } from '../utils/graph-data';
import { UNLOCKED_COLOUR } from '../utils/holder-colours';
import { type ForceLayout, startForceLayout } from '../workers/force-layout';
import { CanvasUnavailable } from './graph-states';

export interface GraphCanvasProps {
  data: GraphData;
  /** Locked files' colours (by holder); the others are grey. */
  nodeColours: ReadonlyMap<string, string>;
  selected: string | null;
  /** Zooms to `id` each time `seq` changes (search, the legend, the panel). */
  focus: { id: string; seq: number } | null;
  onSelect: (id: string | null) => void;
}

type LayoutState = 'running' | 'done';

const EDGE_COLOUR = '#d4d4d8';
const EDGE_ACTIVE = '#52525b';
const DIMMED = '#e4e4e7';
const BIG_GRAPH_EDGES = 5_000;

/** How long the force layout runs: longer for bigger graphs, bounded so a huge one settles anyway. */
export const layoutBudgetMs = (nodes: number, known: number) =>
  known >= nodes ? 0 : Math.min(1_500 + nodes * 0.5, 8_000) * (known > 0 ? 0.4 : 1);

/**
 * The import graph drawn with Sigma.js (WebGL) and laid out by ForceAtlas2 in a web worker for a
 * bounded time (`workers/force-layout.ts`). Files keep their place when the graph is fetched again
 * (a new head). Colours change in place when locks change: nothing is laid out again. Labels are
 * drawn on the canvas as text.
 */
export function GraphCanvas({ data, nodeColours, selected, focus, onSelect }: GraphCanvasProps) {
  const container = useRef<HTMLDivElement>(null);
  const [renderer, setRenderer] = useState<Sigma | null>(null);
  const layoutRef = useRef<ForceLayout | null>(null);
  const positions = useRef(new Map<string, { x: number; y: number }>());
  const coloured = useRef(new Map<string, string>());
  const selection = useRef<{ id: string; near: Set<string> } | null>(null);
  const onSelectRef = useRef(onSelect);
  const zoomed = useRef<number | null>(null);
  const [layout, setLayout] = useState<LayoutState>('done');
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    onSelectRef.current = onSelect;
  });

  // The graph and its renderer, once per version of the graph.
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const graph = new Graph({ type: 'directed', multi: false, allowSelfLoops: false });
    let known = 0;
    for (const node of data.nodes) {
      const kept = positions.current.get(node.id);
      if (kept) known += 1;
      graph.addNode(node.id, { ...node, ...kept, color: UNLOCKED_COLOUR });
    }
    for (const edge of data.edges) graph.addEdge(edge.source, edge.target, { size: 1, color: EDGE_COLOUR });
    coloured.current = new Map();

    let sigma: Sigma;
    try {
      sigma = new Sigma(graph, element, {
        // Big graphs: plain lines (an arrow is a line and a head) and no edges while the camera moves.
        defaultEdgeType: graph.size > BIG_GRAPH_EDGES ? 'line' : 'arrow',
        hideEdgesOnMove: graph.size > BIG_GRAPH_EDGES,
        labelRenderedSizeThreshold: 7,
        labelFont: 'ui-sans-serif, system-ui, sans-serif',
        labelSize: 12,
        zIndex: true,
        minCameraRatio: 0.02,
        maxCameraRatio: 4,
        nodeReducer: (node, attributes) => {
          const current = selection.current;
          if (!current) return attributes;
          if (node === current.id) return { ...attributes, highlighted: true, zIndex: 2 };
          if (current.near.has(node)) return { ...attributes, zIndex: 1, forceLabel: true };
          return { ...attributes, color: DIMMED, label: '', zIndex: 0 } satisfies Partial<NodeDisplayData>;
        },
        edgeReducer: (edge, attributes) => {
          const current = selection.current;
          if (!current) return attributes;
          const touches = graph.source(edge) === current.id || graph.target(edge) === current.id;
          return touches ? { ...attributes, color: EDGE_ACTIVE, zIndex: 1 } : { ...attributes, hidden: true };
        },
      });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
      return;
    }
    setFailure(null);
    setRenderer(sigma);
    sigma.on('clickNode', ({ node }) => onSelectRef.current(node));
    sigma.on('clickStage', () => onSelectRef.current(null));
    sigma.on('enterNode', () => element.style.setProperty('cursor', 'pointer'));
    sigma.on('leaveNode', () => element.style.removeProperty('cursor'));

    const budget = graph.size > 0 ? layoutBudgetMs(graph.order, known) : 0;
    // Places are remembered for the next graph only once laid out: a renderer torn down before its
    // layout ran (a remount) leaves the next one to lay the files out itself.
    let settled = budget === 0;
    if (budget > 0) {
      setLayout('running');
      layoutRef.current = startForceLayout(graph, budget, () => {
        settled = true;
        setLayout('done');
      });
    } else {
      setLayout('done');
    }

    return () => {
      const laidOut = settled;
      layoutRef.current?.stop();
      layoutRef.current = null;
      if (laidOut) {
        // The files of this graph only: a file deleted since is forgotten.
        positions.current = new Map(
          graph.mapNodes((id, attributes) => [id, { x: attributes.x as number, y: attributes.y as number }]),
        );
      }
      sigma.kill();
      setRenderer(null);
    };
  }, [data]);

  // Lock colours, changed in place: only the files whose colour changed.
  useEffect(() => {
    const graph = renderer?.getGraph();
    if (!graph) return;
    const before = coloured.current;
    for (const [id] of before) {
      if (!nodeColours.has(id) && graph.hasNode(id)) graph.setNodeAttribute(id, 'color', UNLOCKED_COLOUR);
    }
    for (const [id, colour] of nodeColours) {
      if (before.get(id) !== colour && graph.hasNode(id)) graph.setNodeAttribute(id, 'color', colour);
    }
    coloured.current = new Map(nodeColours);
  }, [nodeColours, renderer]);

  // The selected file, its imports and importers stand out; the rest fades.
  useEffect(() => {
    if (!renderer) return;
    const graph = renderer.getGraph();
    selection.current =
      selected && graph.hasNode(selected) ? { id: selected, near: new Set(graph.neighbors(selected)) } : null;
    renderer.refresh({ skipIndexation: true });
  }, [selected, renderer]);

  // Zoom to a file. The layout stops first, so the file stays where the camera went.
  useEffect(() => {
    // Each request once, also when it came before the renderer did.
    if (!focus || zoomed.current === focus.seq || !renderer?.getGraph().hasNode(focus.id)) return;
    zoomed.current = focus.seq;
    layoutRef.current?.stop();
    const at = renderer.getNodeDisplayData(focus.id);
    if (at) void renderer.getCamera().animate({ x: at.x, y: at.y, ratio: 0.12 }, { duration: 400 });
  }, [focus, renderer]);

  if (failure) return <CanvasUnavailable reason={failure} />;
  return (
    <div
      ref={container}
      className="absolute inset-0"
      data-testid="graph-canvas"
      data-layout={layout}
      data-nodes={data.nodes.length}
      aria-label={`Import graph: ${data.nodes.length} files, ${data.edges.length} imports`}
      role="img"
    />
  );
}
