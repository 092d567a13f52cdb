import type { GraphResponse } from '@/contracts/graph';

/** A file as the canvas draws it: where it starts before the layout moves it, and how big. */
export interface GraphNodeView {
  id: string;
  /** The file's name, drawn beside it when zoomed in. */
  label: string;
  x: number;
  y: number;
  size: number;
}

/** GET /api/graph's nodes and edges made ready to draw, with what the side panel lists per file. */
export interface GraphData {
  version: string;
  nodes: GraphNodeView[];
  edges: { source: string; target: string }[];
  /** The files each file imports, sorted. */
  imports: ReadonlyMap<string, readonly string[]>;
  /** The files that import each file, sorted. */
  importedBy: ReadonlyMap<string, readonly string[]>;
  warnings: readonly string[];
}

const NONE: readonly string[] = [];

export const importsOf = (data: GraphData, id: string) => data.imports.get(id) ?? NONE;
export const importersOf = (data: GraphData, id: string) => data.importedBy.get(id) ?? NONE;

const folderOf = (id: string) => {
  const slash = id.lastIndexOf('/');
  return slash < 0 ? '' : id.slice(0, slash);
};
export const baseName = (id: string) => id.slice(id.lastIndexOf('/') + 1);

const GOLDEN_ANGLE = Math.PI * (3 - Math.sqrt(5));

/**
 * Where each file starts: every folder gets a place on a spiral (in path order) and its files a small
 * spiral around it, so a folder starts together and the force layout has little to undo. The same
 * answer always gives the same picture.
 */
function startPositions(ids: readonly string[]): Map<string, { x: number; y: number }> {
  const byFolder = new Map<string, string[]>();
  for (const id of ids) {
    const folder = folderOf(id);
    const files = byFolder.get(folder);
    if (files) files.push(id);
    else byFolder.set(folder, [id]);
  }
  const positions = new Map<string, { x: number; y: number }>();
  [...byFolder.keys()].sort().forEach((folder, f) => {
    const files = byFolder.get(folder) ?? [];
    const radius = 30 * Math.sqrt(f);
    const cx = radius * Math.cos(f * GOLDEN_ANGLE);
    const cy = radius * Math.sin(f * GOLDEN_ANGLE);
    files.forEach((id, i) => {
      const r = 2 * Math.sqrt(i + 0.5);
      positions.set(id, { x: cx + r * Math.cos(i * GOLDEN_ANGLE), y: cy + r * Math.sin(i * GOLDEN_ANGLE) });
    });
  });
  return positions;
}

function append(map: Map<string, string[]>, key: string, value: string) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * A node's size: 3 for a file alone, growing with the square root of its imports and importers, and
 * smaller in big graphs (down to a third from 5,000 files), so that a whole big graph stays legible.
 */
export const nodeSize = (degree: number, files = 1) =>
  Math.min(3 + Math.sqrt(degree) * 1.5, 18) * Math.min(1, Math.max(1 / 3, Math.sqrt(500 / files)));

/**
 * The graph to draw from the API's answer. Edges to or from a file the answer does not list are
 * dropped (the API lists every file an edge names; this keeps a bad answer from breaking the canvas),
 * and so are self-imports and repeated edges.
 */
export function toGraphData(response: GraphResponse): GraphData {
  const ids = [...new Set(response.nodes.map((node) => node.id))].sort();
  const known = new Set(ids);
  const imports = new Map<string, string[]>();
  const importedBy = new Map<string, string[]>();
  const edges: GraphData['edges'] = [];
  const seen = new Set<string>();
  for (const { source, target } of response.edges) {
    if (source === target || !known.has(source) || !known.has(target)) continue;
    const key = `${source}\0${target}`;
    if (seen.has(key)) continue;
    seen.add(key);
    edges.push({ source, target });
    append(imports, source, target);
    append(importedBy, target, source);
  }
  for (const list of imports.values()) list.sort();
  for (const list of importedBy.values()) list.sort();
  const positions = startPositions(ids);
  const nodes = ids.map((id) => {
    const at = positions.get(id) ?? { x: 0, y: 0 };
    const degree = (imports.get(id)?.length ?? 0) + (importedBy.get(id)?.length ?? 0);
    return { id, label: baseName(id), x: at.x, y: at.y, size: nodeSize(degree, ids.length) };
  });
  return { version: response.version, nodes, edges, imports, importedBy, warnings: response.warnings ?? [] };
}

/**
 * Files whose path contains `query` (case-insensitive), best first: the name itself starting with
 * it, then the name containing it, then the folders; ties in path order. At most `limit`.
 */
export function searchFiles(ids: readonly string[], query: string, limit = 8): string[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [];
  const scored: { id: string; score: number }[] = [];
  for (const id of ids) {
    const path = id.toLowerCase();
    if (path === needle) {
      scored.push({ id, score: 0 });
      continue;
    }
    const name = baseName(path);
    const score = name.startsWith(needle) ? 1 : name.includes(needle) ? 2 : path.includes(needle) ? 3 : -1;
    if (score > 0) scored.push({ id, score });
  }
  scored.sort((a, b) => a.score - b.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, limit).map((entry) => entry.id);
}
