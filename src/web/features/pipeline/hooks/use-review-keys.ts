import { useEffect, useRef } from 'react';

export interface ReviewKeyHandlers {
  nextFile: () => void;
  previousFile: () => void;
  nextNote: () => void;
  previousNote: () => void;
  toggleViewed: () => void;
}

/** Whether a key press was meant for a field: typing is never a shortcut. */
function typing(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
}

/** j/k next/previous file, n/p next/previous finding or comment, v toggles "viewed" on the current file. */
export function useReviewKeys(handlers: ReviewKeyHandlers, enabled = true) {
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (typing(event.target)) return;
      // A dialog (Request changes) has the keyboard while it is open.
      if (document.querySelector('[role="dialog"]')) return;
      const action = {
        j: latest.current.nextFile,
        k: latest.current.previousFile,
        n: latest.current.nextNote,
        p: latest.current.previousNote,
        v: latest.current.toggleViewed,
      }[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [enabled]);
}
