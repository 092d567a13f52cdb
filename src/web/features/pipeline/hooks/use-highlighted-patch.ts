import { useEffect, useState } from 'react';
import { type CodeToken, canHighlight, tokenize } from '../utils/highlighter';
import type { PatchHunk, PatchLine } from '../utils/parse-patch';

/** The tokens of a patch's lines, by line number, for each version. */
export interface HighlightedLines {
  old: Map<number, CodeToken[]>;
  new: Map<number, CodeToken[]>;
}

/** Past this many lines a patch is shown plain: the person reads it sooner that way. */
const MAX_HIGHLIGHT_LINES = 6000;

async function tokenizeSide(
  lines: readonly PatchLine[],
  side: 'old' | 'new',
  language: string,
  into: Map<number, CodeToken[]>,
) {
  const number = (line: PatchLine) => (side === 'old' ? line.oldLine : line.newLine);
  const kept = lines.filter((line) => number(line) !== null);
  if (kept.length === 0) return;
  // A hunk's lines of one version are contiguous, so a comment or string that spans lines is
  // coloured as such within the hunk.
  const tokens = await tokenize(kept.map((line) => line.text).join('\n'), language);
  if (!tokens) return;
  kept.forEach((line, index) => {
    const lineTokens = tokens[index];
    if (lineTokens) into.set(number(line)!, lineTokens);
  });
}

async function highlight(hunks: readonly PatchHunk[], language: string): Promise<HighlightedLines> {
  const result: HighlightedLines = { old: new Map(), new: new Map() };
  for (const hunk of hunks) {
    await tokenizeSide(hunk.lines, 'old', language, result.old);
    await tokenizeSide(hunk.lines, 'new', language, result.new);
  }
  return result;
}

/**
 * The patch's lines coloured for their language, once the highlighter and the grammar are
 * loaded; null until then, for a language without a grammar, for a very long patch, or when
 * highlighting fails (the lines are then shown plain).
 */
export function useHighlightedPatch(hunks: readonly PatchHunk[], language: string): HighlightedLines | null {
  const [highlighted, setHighlighted] = useState<{
    of: readonly PatchHunk[];
    lines: HighlightedLines;
  } | null>(null);
  useEffect(() => {
    const size = hunks.reduce((sum, hunk) => sum + hunk.lines.length, 0);
    if (!canHighlight(language) || size === 0 || size > MAX_HIGHLIGHT_LINES) return;
    let current = true;
    highlight(hunks, language).then(
      (lines) => current && setHighlighted({ of: hunks, lines }),
      // The lines stay plain; the console says why.
      (error: unknown) => console.warn('Syntax highlighting failed:', error),
    );
    return () => {
      current = false;
    };
  }, [hunks, language]);
  return highlighted?.of === hunks ? highlighted.lines : null;
}
