import type { ResolvedTheme } from '@/web/lib/theme';
import { UNLOCKED_COLOUR } from './holder-colours';

/**
 * The colours the canvas draws besides holders' own, per theme: the canvas and the legend both read
 * them from here, so a swatch in the legend is the colour a node has on the canvas.
 */
export interface GraphPalette {
  /** A file nobody holds. */
  unlocked: string;
  /** A file that is neither the selected one nor linked to it, while one is selected. */
  dimmed: string;
  /** File names beside their nodes. */
  label: string;
  edge: string;
  /** An import of or by the selected file. */
  edgeActive: string;
  /** The box behind the full path of the hovered (or selected) file. */
  hoverBackground: string;
  hoverText: string;
  hoverShadow: string;
}

/**
 * Light: on white (the canvas) and zinc-50 (#fafafa). Dark: on the dark theme's surfaces, zinc-950
 * (#09090b) to zinc-900. Names and paths keep a contrast of 7:1 or more on either.
 */
export const GRAPH_PALETTES: Readonly<Record<ResolvedTheme, Readonly<GraphPalette>>> = {
  light: {
    unlocked: UNLOCKED_COLOUR,
    dimmed: '#e4e4e7',
    label: '#3f3f46',
    edge: '#d4d4d8',
    edgeActive: '#52525b',
    hoverBackground: '#ffffff',
    hoverText: '#18181b',
    hoverShadow: 'rgba(0, 0, 0, 0.45)',
  },
  dark: {
    unlocked: UNLOCKED_COLOUR,
    dimmed: '#3f3f46',
    label: '#d4d4d8',
    edge: '#3f3f46',
    edgeActive: '#a1a1aa',
    hoverBackground: '#27272a',
    hoverText: '#fafafa',
    hoverShadow: 'rgba(0, 0, 0, 0.9)',
  },
};

/** The selected file and the files it imports or is imported by. */
export interface Selection {
  id: string;
  near: ReadonlySet<string>;
}

/**
 * How a file is drawn: its lock's colour, else the free colour; while a file is selected, the files
 * not linked to it fade and lose their names, and the linked ones keep theirs whatever the zoom.
 */
export function styleNode<A extends { label?: unknown; lock?: unknown }>(
  id: string,
  attributes: A,
  selection: Selection | null,
  palette: GraphPalette,
) {
  // `lock`: the colour of the lock shown for the file (`colourLocks`), absent while it is free.
  const color = typeof attributes.lock === 'string' ? attributes.lock : palette.unlocked;
  if (!selection) return { ...attributes, color };
  if (id === selection.id) return { ...attributes, color, highlighted: true, zIndex: 2 };
  if (selection.near.has(id)) return { ...attributes, color, zIndex: 1, forceLabel: true };
  return { ...attributes, color: palette.dimmed, label: '', zIndex: 0 };
}

/** How an import is drawn: all alike; while a file is selected, only its own imports, darker. */
export function styleEdge<A extends object>(
  attributes: A,
  ends: { source: string; target: string },
  selection: Selection | null,
  palette: GraphPalette,
) {
  if (!selection) return { ...attributes, color: palette.edge };
  const touches = ends.source === selection.id || ends.target === selection.id;
  return touches
    ? { ...attributes, color: palette.edgeActive, zIndex: 1 }
    : { ...attributes, color: palette.edge, hidden: true };
}
