import { useCallback, useEffect, useMemo, useState } from 'react';
import type { DiffFile } from '@/contracts/diff';
import { fileFingerprint, isViewed, readMarks, type ViewedMarks, writeMarks } from '../utils/viewed-marks';

/** The person's "viewed" marks on a task's changed files, kept in this browser under `storageKey`. */
export function useViewedMarks(storageKey: string | null, files: readonly DiffFile[]) {
  const [marks, setMarks] = useState<ViewedMarks>(() => (storageKey ? readMarks(storageKey) : {}));
  const [loadedKey, setLoadedKey] = useState(storageKey);
  // Another person or task: its own marks.
  if (loadedKey !== storageKey) {
    setLoadedKey(storageKey);
    setMarks(storageKey ? readMarks(storageKey) : {});
  }

  useEffect(() => {
    if (storageKey && loadedKey === storageKey) writeMarks(storageKey, marks);
  }, [storageKey, loadedKey, marks]);

  const viewed = useMemo(
    () => new Set(files.filter((file) => isViewed(marks, file)).map((file) => file.path)),
    [files, marks],
  );

  const setViewed = useCallback((file: DiffFile, on: boolean) => {
    setMarks((current) => {
      const next = { ...current };
      if (on) next[file.path] = fileFingerprint(file);
      else delete next[file.path];
      return next;
    });
  }, []);

  return { viewed, setViewed };
}
