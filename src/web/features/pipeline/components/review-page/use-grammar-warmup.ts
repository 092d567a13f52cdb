import { useEffect, useMemo } from 'react';
import type { DiffFile } from '@/contracts/diff';
import { canHighlight, tokenize } from '../../utils/highlighter';
import { parsePatch } from '../../utils/parse-patch';

/** Lines of a language's first file coloured to warm its grammar up (its first rules compile then). */
const SAMPLE_LINES = 20;

type Idle = (callback: () => void) => void;
const whenIdle: Idle = (callback) => {
  if (typeof requestIdleCallback === 'function') requestIdleCallback(callback, { timeout: 2000 });
  else setTimeout(callback, 50);
};

/**
 * Loads the grammar of each language of a large diff while the page is idle, one language at a
 * time, in the files' order: loading one and compiling its first rules is a task of up to about
 * 150 ms, which would otherwise come when the page scrolls onto the language's first file.
 */
export function useGrammarWarmup(files: readonly DiffFile[], enabled: boolean) {
  const samples = useMemo(() => {
    const byLanguage = new Map<string, string>();
    if (!enabled) return byLanguage;
    for (const file of files) {
      if (byLanguage.has(file.language) || !canHighlight(file.language) || !file.patch) continue;
      const lines = parsePatch(file.patch)[0]?.lines.slice(0, SAMPLE_LINES) ?? [];
      byLanguage.set(file.language, lines.map((line) => line.text).join('\n'));
    }
    return byLanguage;
  }, [files, enabled]);

  useEffect(() => {
    const queue = [...samples];
    let stopped = false;
    const next = () => {
      const entry = queue.shift();
      if (stopped || !entry) return;
      const [language, sample] = entry;
      // Only the grammar's loading matters here; a failure shows when a file is coloured.
      void tokenize(sample, language)
        .catch(() => null)
        .finally(() => whenIdle(next));
    };
    whenIdle(next);
    return () => {
      stopped = true;
    };
  }, [samples]);
}
