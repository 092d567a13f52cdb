import { type RefObject, useCallback, useLayoutEffect, useRef, useState } from 'react';

/** Pixels from the bottom that still count as "at the bottom". */
const SLACK = 24;

/**
 * Keeps a scrolling box pinned to its bottom as content grows, while the reader is at the bottom;
 * scrolling up stops that until they scroll back down or jump to the latest line.
 */
export function useFollowScroll(ref: RefObject<HTMLElement | null>, contentSize: number, visible = true) {
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

  // biome-ignore lint/correctness/useExhaustiveDependencies: content growth and becoming visible are the triggers.
  useLayoutEffect(() => {
    const box = ref.current;
    if (box && visible && followingRef.current) box.scrollTop = box.scrollHeight;
  }, [contentSize, visible, ref]);

  const jumpToLatest = useCallback(() => {
    const box = ref.current;
    if (box) box.scrollTop = box.scrollHeight;
    setFollow(true);
  }, [ref, setFollow]);

  return { following, onScroll, jumpToLatest };
}
