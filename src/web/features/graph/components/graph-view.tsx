import { lazy, type ReactNode, Suspense, useCallback, useMemo, useState } from 'react';
import { LoadingState, Spinner } from '@/web/components/ui/spinner';
import { useGraph } from '../api/get-graph';
import { useGraphLocksSnapshot } from '../api/get-graph-locks';
import { useGraphLocks } from '../stores/graph-lock-store';
import { importersOf, importsOf, toGraphData } from '../utils/graph-data';
import { colourLocks } from '../utils/holder-colours';
import { FilePanel } from './file-panel';
import { GraphSearch } from './graph-search';
import { CanvasUnavailable, GraphBuilding, GraphEmpty, GraphFailed, isMissingBranch } from './graph-states';
import { LockLegend } from './lock-legend';

// Sigma and graphology load with the page that draws them, not with the board. A browser where they
// cannot load (no WebGL 2 at all) still gets the legend, the search and the panel.
const GraphCanvas = lazy(() =>
  import('./graph-canvas').then(
    (module) => ({ default: module.GraphCanvas }),
    (error: unknown) => ({
      default: () => <CanvasUnavailable reason={error instanceof Error ? error.message : String(error)} />,
    }),
  ),
);

interface GraphViewProps {
  projectId: string;
  branch: string;
  /** AutoCoder's own remote of the project: names the repository to GET /api/graph. */
  repoUrl: string;
  /** Shown under an empty graph (how to push files). */
  emptyAction?: ReactNode;
}

/**
 * A project's import graph: files as nodes, imports as edges, locked files coloured by holder, a
 * search that zooms to a file, and a panel for the file clicked (who holds it and why, its imports
 * and importers). Locks follow the project's stream live; a new head is fetched when the branch moves.
 */
export function GraphView({ projectId, branch, repoUrl, emptyAction }: GraphViewProps) {
  useGraphLocksSnapshot(projectId);
  const graph = useGraph(projectId, repoUrl, branch);
  const locks = useGraphLocks(projectId);
  const data = useMemo(() => (graph.data ? toGraphData(graph.data) : null), [graph.data]);
  const files = useMemo(() => data?.nodes.map((node) => node.id) ?? [], [data]);
  const colouring = useMemo(() => colourLocks(locks), [locks]);
  const holderColour = useMemo(
    () => new Map(colouring.legend.map((entry) => [entry.agent.id, entry.colour])),
    [colouring],
  );
  const [selected, setSelected] = useState<string | null>(null);
  const [focus, setFocus] = useState<{ id: string; seq: number } | null>(null);

  const zoomTo = useCallback((path: string) => {
    setSelected(path);
    setFocus((previous) => ({ id: path, seq: (previous?.seq ?? 0) + 1 }));
  }, []);

  if (!data) {
    if (graph.isError) {
      if (isMissingBranch(graph.error)) return <GraphEmpty branch={branch} noBranch action={emptyAction} />;
      return (
        <GraphFailed error={graph.error} onRetry={() => void graph.refetch()} retrying={graph.isFetching} />
      );
    }
    return <GraphBuilding branch={branch} />;
  }
  if (data.nodes.length === 0) return <GraphEmpty branch={branch} noBranch={false} action={emptyAction} />;

  return (
    <div className="flex h-full min-h-0 flex-col" data-testid="graph-view" data-version={data.version}>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b border-zinc-200 px-3 py-2">
        <GraphSearch files={files} onPick={zoomTo} />
        <p className="text-xs text-zinc-500">
          <span className="font-medium text-zinc-700">{branch}</span> at{' '}
          <code title={data.version}>{data.version.slice(0, 8)}</code> · {files.length} files ·{' '}
          {data.edges.length} imports
        </p>
        {graph.isFetching && (
          <span className="flex items-center gap-1 text-xs text-zinc-500" data-testid="graph-refreshing">
            <Spinner className="size-3" /> Updating to the new head…
          </span>
        )}
        {graph.isError && (
          <span className="text-xs text-amber-700">Could not update: showing the last graph.</span>
        )}
        {data.warnings.length > 0 && (
          <details className="relative text-xs text-zinc-500">
            <summary className="cursor-pointer">{data.warnings.length} warnings</summary>
            <ul className="absolute z-10 mt-1 max-h-60 max-w-lg overflow-y-auto rounded border border-zinc-200 bg-white p-2 shadow">
              {data.warnings.map((warning) => (
                <li key={warning} className="font-mono break-all">
                  {warning}
                </li>
              ))}
            </ul>
          </details>
        )}
      </div>
      <div className="flex min-h-0 flex-1">
        <div className="relative min-w-0 flex-1 bg-white">
          <Suspense fallback={<LoadingState label="Loading the graph view…" className="h-full" />}>
            <GraphCanvas
              data={data}
              nodeColours={colouring.nodeColours}
              selected={selected}
              focus={focus}
              onSelect={setSelected}
            />
          </Suspense>
          <div className="absolute top-2 left-2 max-h-[45%] w-64 overflow-y-auto rounded-lg border border-zinc-200 bg-white/95 p-3 shadow-sm">
            <LockLegend entries={colouring.legend} onPick={zoomTo} />
          </div>
        </div>
        {selected && (
          <FilePanel
            path={selected}
            holders={locks.files[selected]}
            imports={importsOf(data, selected)}
            importedBy={importersOf(data, selected)}
            colourOf={(id) => holderColour.get(id)}
            onSelect={zoomTo}
            onZoom={zoomTo}
            onClose={() => setSelected(null)}
          />
        )}
      </div>
    </div>
  );
}
