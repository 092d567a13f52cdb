import Graph from 'graphology';
import { useEffect, useRef, useState } from 'react';
import Sigma from 'sigma';
import { useGraphPalette } from '../hooks/use-graph-palette';
import { createCanvasLabels, LABEL_SETTINGS, labelDensity } from '../utils/canvas-labels';
import type { GraphData } from '../utils/graph-data';
import { type Selection, styleEdge, styleNode } from '../utils/graph-palette';
import { type ForceLayout, startForceLayout } from '../workers/force-layout';
import { CanvasUnavailable } from './graph-states';

export interface GraphCanvasProps {
  data: GraphData;
  /** Locked files' colours (by holder); the others are the free colour. */
  nodeColours: ReadonlyMap<string, string>;
  selected: string | null;
  /** Zooms to `id` each time `seq` changes (search, the legend, the panel). */
  focus: { id: string; seq: number } | null;
  onSelect: (id: string | null) => void;
}

type LayoutState = 'running' | 'done';

const BIG_GRAPH_EDGES = 5_000;

/** How long the force layout runs: longer for bigger graphs, bounded so a huge one settles anyway. */
export const layoutBudgetMs = (nodes: number, known: number) =>
  known >= nodes ? 0 : Math.min(1_500 + nodes * 0.5, 8_000) * (known > 0 ? 0.4 : 1);

/**
 * The import graph drawn with Sigma.js (WebGL) and laid out by ForceAtlas2 in a web worker for a
 * bounded time (`workers/force-layout.ts`). Files keep their place when the graph is fetched again
 * (a new head). Colours change in place when locks change: nothing is laid out again. Each file is
 * named on the canvas (as text) by its file name, fewer of them as the view zooms out
 * (`utils/canvas-labels.ts`); the one under the pointer shows its full path. Colours follow the
 * theme (`utils/graph-palette.ts`, shared with the legend).
 */
export function GraphCanvas({ data, nodeColours, selected, focus, onSelect }: GraphCanvasProps) {
  const container = useRef<HTMLDivElement>(null);
  const [renderer, setRenderer] = useState<Sigma | null>(null);
  const layoutRef = useRef<ForceLayout | null>(null);
  const positions = useRef(new Map<string, { x: number; y: number }>());
  const coloured = useRef(new Map<string, string>());
  const selection = useRef<Selection | null>(null);
  const palette = useGraphPalette();
  const paletteRef = useRef(palette);
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
      graph.addNode(node.id, { ...node, ...kept });
    }
    for (const edge of data.edges) graph.addEdge(edge.source, edge.target, { size: 1 });
    coloured.current = new Map();
    const labels = createCanvasLabels(element, () => paletteRef.current);

    let sigma: Sigma;
    try {
      sigma = new Sigma(graph, element, {
        // Big graphs: plain lines (an arrow is a line and a head) and no edges while the camera moves.
        defaultEdgeType: graph.size > BIG_GRAPH_EDGES ? 'line' : 'arrow',
        hideEdgesOnMove: graph.size > BIG_GRAPH_EDGES,
        ...LABEL_SETTINGS,
        labelDensity: labelDensity(graph.order),
        labelFont: 'ui-sans-serif, system-ui, sans-serif',
        labelSize: 12,
        labelColor: { color: paletteRef.current.label },
        defaultDrawNodeLabel: labels.drawLabel,
        defaultDrawNodeHover: labels.drawHover,
        zIndex: true,
        minCameraRatio: 0.02,
        maxCameraRatio: 4,
        nodeReducer: (node, attributes) => styleNode(node, attributes, selection.current, paletteRef.current),
        edgeReducer: (edge, attributes) =>
          styleEdge(
            attributes,
            { source: graph.source(edge), target: graph.target(edge) },
            selection.current,
            paletteRef.current,
          ),
      });
    } catch (error) {
      setFailure(error instanceof Error ? error.message : String(error));
      return;
    }
    setFailure(null);
    setRenderer(sigma);
    sigma.on('beforeRender', labels.startFrame);
    sigma.on('afterRender', () => labels.endFrame(sigma.getCamera().getState().ratio));
    sigma.on('clickNode', ({ node }) => onSelectRef.current(node));
    sigma.on('clickStage', () => onSelectRef.current(null));
    sigma.on('enterNode', ({ node }) => {
      labels.enterNode(node);
      element.style.setProperty('cursor', 'pointer');
    });
    sigma.on('leaveNode', () => {
      labels.leaveNode();
      element.style.removeProperty('cursor');
    });

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
      labels.clear();
      setRenderer(null);
    };
  }, [data]);

  // Lock colours, changed in place: only the files whose colour changed.
  useEffect(() => {
    const graph = renderer?.getGraph();
    if (!graph) return;
    const before = coloured.current;
    for (const [id] of before) {
      if (!nodeColours.has(id) && graph.hasNode(id)) graph.removeNodeAttribute(id, 'lock');
    }
    for (const [id, colour] of nodeColours) {
      if (before.get(id) !== colour && graph.hasNode(id)) graph.setNodeAttribute(id, 'lock', colour);
    }
    coloured.current = new Map(nodeColours);
  }, [nodeColours, renderer]);

  // The theme's colours: the reducers read them, the labels' colour is sigma's setting; setting it
  // redraws everything in the new colours.
  useEffect(() => {
    paletteRef.current = palette;
    if (renderer && renderer.getSetting('labelColor').color !== palette.label)
      renderer.setSettings({ labelColor: { color: palette.label } });
  }, [palette, renderer]);

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
