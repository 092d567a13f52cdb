import {
  createContext,
  type ReactNode,
  useContext,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
} from 'react';
import { flushSync } from 'react-dom';

/**
 * Lines of a large review are drawn only around the visible part of the page (issue 27): a diff
 * of 20,000 lines drawn at once is 300,000 elements, seconds before the page answers, and a page
 * that keeps them all once scrolled through answers each key press slowly. Below a
 * NearWatcherProvider (the review page puts one around a large diff's files), a block stands in
 * for its lines at their height until they come near the visible part, draws them then, and
 * stands in for them again, at the height they had, once they are far from it.
 *
 * One pair of IntersectionObservers watches every block, with the page's scroller as their root.
 * The blocks to draw (the nearest first), then those to put away, wait in a queue: one block per
 * task, so that a jump or a fast scroll is many short tasks, with frames between them, rather
 * than one long one. Without a provider, blocks always draw their lines.
 */

/** A block draws its lines once it is this close to the scroller's visible part, in px (about a screen). */
export const NEAR_MARGIN_PX = 1000;
/** ... and stops drawing them once it is farther than this. */
export const FAR_MARGIN_PX = 3000;

/** The nearest ancestor that scrolls vertically (its content overflows it), or null for the viewport. */
function scrollParent(element: Element): Element | null {
  for (let parent = element.parentElement; parent; parent = parent.parentElement) {
    const { overflowY } = getComputedStyle(parent);
    if ((overflowY === 'auto' || overflowY === 'scroll') && parent.scrollHeight > parent.clientHeight + 1)
      return parent;
  }
  return null;
}

interface Watched {
  /** Draw the lines: the block came within NEAR_MARGIN_PX. */
  near: () => void;
  /** Put them away: the block went farther than FAR_MARGIN_PX; `height` is its height then. */
  far: (height: number) => void;
}

/** How far an observed element is from the root's visible part, in px (0: within it). */
function distance(entry: IntersectionObserverEntry): number {
  const root = entry.rootBounds;
  if (!root) return 0;
  const box = entry.boundingClientRect;
  // rootBounds include the margin: the visible part is NEAR_MARGIN_PX inside them.
  return Math.max(0, box.top - (root.bottom - NEAR_MARGIN_PX), root.top + NEAR_MARGIN_PX - box.bottom);
}

/** Tells blocks when to draw their lines and when to put them away. */
export class NearWatcher {
  private nearObserver: IntersectionObserver | null = null;
  private farObserver: IntersectionObserver | null = null;
  private readonly watched = new Map<Element, Watched>();
  /** Blocks whose lines are drawn. */
  private readonly drawn = new Set<Element>();
  /** Blocks to draw, by their distance from the visible part when they came near. */
  private readonly toDraw = new Map<Element, number>();
  /** Blocks to put away, with their height. */
  private readonly toPutAway = new Map<Element, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The scroller, found once from the first block (undefined until then). */
  private root: Element | null | undefined;

  private observers(element: Element): [IntersectionObserver, IntersectionObserver] {
    if (this.root === undefined) this.root = scrollParent(element);
    const root = this.root;
    // The near observer's margin is NEAR_MARGIN_PX, the far one's FAR_MARGIN_PX, above and below.
    this.nearObserver ??= new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!this.watched.has(entry.target)) continue;
          if (entry.isIntersecting) {
            this.toPutAway.delete(entry.target);
            if (!this.drawn.has(entry.target)) this.toDraw.set(entry.target, distance(entry));
          } else this.toDraw.delete(entry.target);
        }
        this.kick();
      },
      { root, rootMargin: `${NEAR_MARGIN_PX}px 0px` },
    );
    this.farObserver ??= new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          if (!this.watched.has(entry.target) || entry.isIntersecting) continue;
          this.toDraw.delete(entry.target);
          if (this.drawn.has(entry.target)) this.toPutAway.set(entry.target, entry.boundingClientRect.height);
        }
        this.kick();
      },
      { root, rootMargin: `${FAR_MARGIN_PX}px 0px` },
    );
    return [this.nearObserver, this.farObserver];
  }

  private kick(): void {
    if (this.timer !== null || (this.toDraw.size === 0 && this.toPutAway.size === 0)) return;
    this.timer = setTimeout(() => this.step(), 0);
  }

  /** One block: the nearest to draw, else one to put away. */
  private step(): void {
    this.timer = null;
    let nearest: Element | null = null;
    let best = Number.POSITIVE_INFINITY;
    for (const [element, away] of this.toDraw)
      if (away < best) {
        nearest = element;
        best = away;
      }
    if (nearest) {
      this.toDraw.delete(nearest);
      this.drawn.add(nearest);
      this.watched.get(nearest)?.near();
    } else {
      const next = this.toPutAway.entries().next();
      if (!next.done) {
        const [element, height] = next.value;
        this.toPutAway.delete(element);
        this.drawn.delete(element);
        this.watched.get(element)?.far(height);
      }
    }
    this.kick();
  }

  /**
   * Asks the far observer about the element again: it reports changes only, and a block can go
   * far again before its lines are drawn. Its answer comes with the next frame, measured by the
   * browser then (no layout is forced here).
   */
  recheckFar(element: Element): void {
    if (!this.farObserver || !this.watched.has(element)) return;
    this.farObserver.unobserve(element);
    this.farObserver.observe(element);
  }

  /** Watches the element until the returned function is called. */
  watch(element: Element, watched: Watched): () => void {
    if (typeof IntersectionObserver === 'undefined') {
      watched.near();
      return () => {};
    }
    const observers = this.observers(element);
    this.watched.set(element, watched);
    for (const observer of observers) observer.observe(element);
    return () => {
      this.watched.delete(element);
      this.drawn.delete(element);
      this.toDraw.delete(element);
      this.toPutAway.delete(element);
      for (const observer of observers) observer.unobserve(element);
    };
  }

  disconnect(): void {
    this.nearObserver?.disconnect();
    this.farObserver?.disconnect();
    this.nearObserver = null;
    this.farObserver = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.watched.clear();
    this.drawn.clear();
    this.toDraw.clear();
    this.toPutAway.clear();
  }
}

const NearContext = createContext<NearWatcher | null>(null);

/** The watcher of the blocks below it, made once and disconnected on unmount. */
export function NearWatcherProvider({ children }: { children: ReactNode }) {
  const [watcher] = useState(() => new NearWatcher());
  useEffect(() => () => watcher.disconnect(), [watcher]);
  return <NearContext.Provider value={watcher}>{children}</NearContext.Provider>;
}

/**
 * `children` while the block is near the visible part (or `force`d: a line a finding points at, a
 * comment box), an empty box of their height otherwise (`estimateHeight` until they have been
 * drawn); without a watcher above it, always `children`.
 */
export function LazyBlock({
  estimateHeight,
  force = false,
  children,
}: {
  estimateHeight: number;
  force?: boolean;
  children: ReactNode;
}) {
  const watcher = useContext(NearContext);
  const [near, setNear] = useState(watcher === null);
  const [height, setHeight] = useState<number | null>(null);
  const box = useRef<HTMLDivElement>(null);

  useLayoutEffect(() => {
    const element = box.current;
    if (!element || !watcher) return;
    // Each in a task of its own (the watcher's queue), drawn there and then.
    return watcher.watch(element, {
      near: () => flushSync(() => setNear(true)),
      far: (measured) =>
        flushSync(() => {
          setHeight(measured);
          setNear(false);
        }),
    });
  }, [watcher]);

  // Drawn: is it still near? (It may have gone far again meanwhile.)
  useEffect(() => {
    if (near && box.current) watcher?.recheckFar(box.current);
  }, [near, watcher]);

  const shown = near || force;
  return (
    <div
      ref={box}
      style={shown ? undefined : { height: height ?? estimateHeight }}
      data-testid={shown ? undefined : 'diff-placeholder'}
    >
      {shown ? children : null}
    </div>
  );
}
