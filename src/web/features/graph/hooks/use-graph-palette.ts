import { useResolvedTheme } from '@/web/lib/theme';
import { GRAPH_PALETTES, type GraphPalette } from '../utils/graph-palette';

/** The canvas's colours for the theme in effect (the legend shows the same); re-renders when it changes. */
export function useGraphPalette(): Readonly<GraphPalette> {
  return GRAPH_PALETTES[useResolvedTheme()];
}
