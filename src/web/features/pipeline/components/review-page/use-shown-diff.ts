import { useEffect, useState } from 'react';
import type { RunDiff } from '@/contracts/diff';
import { useRunDiff } from '../../api/get-run-diff';
import type { PipelineRunState } from '../../stores/run-state';

/**
 * How long the run's head and review score stay the same before the page asks for their diff:
 * a reload replays the run's events, which move both several times over within a few ms.
 */
const SETTLE_MS = 150;

interface DiffKey {
  runId: string;
  headCommit: string | null;
  reviewScore: number | null;
}

/** The run's diff key: the first at once, each later one once it has stayed for SETTLE_MS. */
function useSettledKey(run: PipelineRunState): DiffKey {
  const { runId, headCommit, reviewScore } = run;
  const [settled, setSettled] = useState<DiffKey>({ runId, headCommit, reviewScore });
  const same =
    settled.runId === runId && settled.headCommit === headCommit && settled.reviewScore === reviewScore;
  useEffect(() => {
    if (same) return;
    const timer = setTimeout(() => setSettled({ runId, headCommit, reviewScore }), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [same, runId, headCommit, reviewScore]);
  return settled;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Whether two answers of the diff API show the same thing (the same commits, patches and findings). */
export function sameDiff(a: RunDiff, b: RunDiff): boolean {
  return (
    a.runId === b.runId &&
    a.baseCommit === b.baseCommit &&
    a.headCommit === b.headCommit &&
    a.files.length === b.files.length &&
    a.files.every((file, index) => {
      const other = b.files[index];
      return (
        other !== undefined &&
        file.path === other.path &&
        file.status === other.status &&
        file.patch === other.patch &&
        sameJson(file.findings, other.findings)
      );
    }) &&
    sameJson(a.generalFindings, b.generalFindings)
  );
}

/**
 * The run's diff as the review page shows it: the query of the settled key, and `shown`, the diff
 * on screen. While the diff of a newer head or review loads, the one shown stays (the page is not
 * unmounted and mounted again), and an answer that shows the same as it keeps it (nothing is
 * drawn again).
 */
export function useShownDiff(run: PipelineRunState) {
  const key = useSettledKey(run);
  const query = useRunDiff(key.runId, key.headCommit, key.reviewScore);
  const [kept, setKept] = useState<RunDiff | null>(null);
  const current = query.data && kept && sameDiff(kept, query.data) ? kept : query.data;
  if (current && current !== kept) setKept(current);
  const shown = current ?? (kept?.runId === run.runId ? kept : undefined);
  return { query, shown };
}
