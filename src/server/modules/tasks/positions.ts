/** Gap between neighbouring cards when positions are assigned afresh. */
export const POSITION_STEP = 1024;
/** Below this gap a midpoint loses precision, so the column is renumbered. */
const MIN_GAP = 1e-6;

/**
 * The position for a card placed at `index` among `ordered` (the column without the card),
 * or null when the neighbours are too close and the column must be renumbered first.
 */
export function positionAt(ordered: readonly number[], index: number): number | null {
  if (ordered.length === 0) return POSITION_STEP;
  const at = Math.max(0, Math.min(index, ordered.length));
  const before = ordered[at - 1];
  const after = ordered[at];
  if (before === undefined && after !== undefined) return after - POSITION_STEP;
  if (after === undefined && before !== undefined) return before + POSITION_STEP;
  if (before === undefined || after === undefined) return POSITION_STEP;
  if (after - before < MIN_GAP) return null;
  return (before + after) / 2;
}
