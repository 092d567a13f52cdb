import { type RefObject, useCallback, useLayoutEffect, useRef, useState } from 'react';

/** Pixels from the bottom that still count as "at the bottom". */
const SLACK = 24;

/**
 * Keeps a scrolling box at its bottom as lines arrive while the reader is there; scrolling up
 * pauses that until they scroll back down or resume. (The pipeline's log has its own copy: features
 * do not import each other.)
 */
export function useFollowScroll(ref: RefObject<HTMLElement | null>, contentKey: unknown) {
  const [following, setFollowing] = useState(true);
  const followingRef = useRef(true);

  const setFollow = useCallback((value: boolean) => {
    followingRef.current = value;
    setFollowing(value);
  }, []);

  const onScroll = useCallback(() => {
    const box = ref.current;
    if (!box) return;
    const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight <= SLACK;
    if (atBottom !== followingRef.current) setFollow(atBottom);
  }, [ref, setFollow]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: new content is the trigger.
  useLayoutEffect(() => {
    const box = ref.current;
    if (box && followingRef.current) box.scrollTop = box.scrollHeight;
  }, [contentKey, ref]);

  const resume = useCallback(() => {
    const box = ref.current;
    if (box) box.scrollTop = box.scrollHeight;
    setFollow(true);
  }, [ref, setFollow]);

  return { following, onScroll, resume };
}
