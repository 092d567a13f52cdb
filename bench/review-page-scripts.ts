// The review-page part's code that runs in the page (review-page-browser.ts sends it), and what
// the bench makes of the entries it collects. The in-page code is given as strings: tsx would
// otherwise add its helpers to functions that Playwright sends to the page.
import { round } from './lib/stats.js';
import type { RendererCpu } from './review-page-cpu.js';

/** Long tasks (or long animation frames) of one phase. */
export interface LongTaskFigures {
  /** The page's renderer during the phase: main-thread CPU, and time it waited for a CPU (null off Linux). */
  renderer: RendererCpu | null;
  count: number;
  over100: number;
  maxMs: number;
  totalMs: number;
}

/**
 * A long animation frame: its time in tasks before its rendering began, in animation-frame and
 * observer callbacks, and in style, layout and paint, with its longest scripts.
 */
export interface LongFrame {
  atMs: number;
  durationMs: number;
  tasksMs: number;
  callbacksMs: number;
  styleLayoutPaintMs: number;
  scripts: { invoker: string; source: string; duration: number }[];
}

export interface VisitFigures {
  /**
   * Navigation start → the first paint of the tree with every file: the paint Element Timing
   * reports for the tree's count (drawn in the same commit as every entry), or, without it, the
   * next frame's start (treeNextFrameMs).
   */
  treePaintMs: number;
  treePaintSource: 'element-timing' | 'next-frame';
  /** Navigation start → the animation frame that first found the tree holding every file. */
  treeFoundMs: number;
  /** Navigation start → the animation frame after that one (an upper bound: tasks run between). */
  treeNextFrameMs: number;
  /** First contentful paint (Chromium's own entry: the first text or image, e.g. a spinner). */
  fcpMs: number | null;
  /** The diff's answer received (resource timing of GET …/diff). */
  diffResponseEndMs: number | null;
  /** The diff's JSON as transferred (bytes over the wire; 0 when unknown). */
  diffTransferBytes: number | null;
  /** GET …/diff requests the visit made (the page asks again when the run's head or review changes). */
  diffRequests: number;
  domNodes: number;
  /** From navigation start until scrolling began: the page loading, highlighting, settling. */
  load: LongTaskFigures & { loafMaxMs: number; quietAfterMs: number; worstFrames: LongFrame[] };
  scroll: LongTaskFigures & {
    loafMaxMs: number;
    durationMs: number;
    frames: number;
    maxFrameGapMs: number;
    framesOver100: number;
    scrolledPx: number;
    reachedBottom: boolean;
    /** The longest frames while scrolling (long animation frames), where their time went. */
    worstFrames: LongFrame[];
  };
  keys: LongTaskFigures & {
    loafMaxMs: number;
    presses: number;
    durationMs: number;
    maxPressMs: number;
    /** The file j ended on is the last one of the tree. */
    reachedLast: boolean;
    worstFrames: LongFrame[];
  };
  pageErrors: string[];
}

export const initScript = (expected: number) => `(() => {
  const bench = { longTasks: [], loafs: [], treeFoundAt: null, treePaintAt: null, treeElementPaint: null, errors: [] };
  window.__reviewBench = bench;
  const observe = (type, into) => {
    try {
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          const entry = { start: e.startTime, duration: e.duration };
          // A long animation frame: where its time went (scripts, then style and layout, then paint).
          if (type === 'long-animation-frame') {
            entry.renderStart = e.renderStart;
            entry.styleAndLayoutStart = e.styleAndLayoutStart;
            entry.scripts = [...e.scripts]
              .sort((a, b) => b.duration - a.duration)
              .slice(0, 2)
              .map((s) => ({ invoker: s.invoker, source: (s.sourceURL || '').split('/').pop() + (s.sourceFunctionName ? ' ' + s.sourceFunctionName : ''), duration: Math.round(s.duration) }));
          }
          into.push(entry);
        }
      }).observe({ type, buffered: true });
    } catch (error) {
      bench.errors.push(type + ': ' + error);
    }
  };
  observe('longtask', bench.longTasks);
  observe('long-animation-frame', bench.loafs);
  // The tree's count carries elementtiming="review-file-tree": the browser reports when it painted it.
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries())
        if (e.identifier === 'review-file-tree' && bench.treeElementPaint === null)
          bench.treeElementPaint = e.renderTime || e.startTime;
    }).observe({ type: 'element', buffered: true });
  } catch (error) {
    bench.errors.push('element: ' + error);
  }
  const poll = () => {
    const tree = document.querySelector('[data-testid="review-file-tree"]');
    const count = tree ? tree.querySelectorAll('[data-testid="review-tree-file"]').length : 0;
    if (count >= ${expected}) {
      bench.treeFoundAt = performance.now();
      requestAnimationFrame(() => { bench.treePaintAt = performance.now(); });
      return;
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
})();`;

export const STATE = `(() => {
  const b = window.__reviewBench;
  const ends = [...b.longTasks, ...b.loafs].map((e) => e.start + e.duration);
  return { now: performance.now(), treePaintAt: b.treePaintAt, lastLongEnd: ends.length ? Math.max(...ends) : 0 };
})()`;

export const scrollScript = (step: number, capMs: number) => `(async () => {
  const page = document.querySelector('[data-testid="review-page"]');
  const scroller = page && page.scrollHeight > page.clientHeight + 1 ? page : document.scrollingElement;
  const start = performance.now();
  let last = start, frames = 0, maxGap = 0, over100 = 0, reachedBottom = false;
  await new Promise((resolve) => {
    const tick = () => {
      const now = performance.now();
      const gap = now - last;
      last = now;
      frames++;
      if (gap > maxGap) maxGap = gap;
      if (gap > 100) over100++;
      reachedBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 2;
      if (reachedBottom || now - start > ${capMs}) return resolve();
      scroller.scrollTop += ${step};
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return { start, end: performance.now(), frames, maxGap, over100, scrolled: scroller.scrollTop, reachedBottom };
})()`;

export const TO_TOP = `(async () => {
  const page = document.querySelector('[data-testid="review-page"]');
  const scroller = page && page.scrollHeight > page.clientHeight + 1 ? page : document.scrollingElement;
  scroller.scrollTop = 0;
  await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  return performance.now();
})()`;

export const TWO_FRAMES = `new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now()))))`;

export interface RawFrame {
  start: number;
  duration: number;
  renderStart?: number;
  styleAndLayoutStart?: number;
  scripts?: { invoker: string; source: string; duration: number }[];
}

/** The `count` longest frames between `from` and `to`. */
export function worstFrames(frames: RawFrame[], from: number, to: number, count = 3): LongFrame[] {
  return frames
    .filter((frame) => frame.start >= from && frame.start < to)
    .sort((a, b) => b.duration - a.duration)
    .slice(0, count)
    .map((frame) => {
      const end = frame.start + frame.duration;
      const render = frame.renderStart && frame.renderStart > 0 ? frame.renderStart : end;
      const layout =
        frame.styleAndLayoutStart && frame.styleAndLayoutStart > 0 ? frame.styleAndLayoutStart : end;
      return {
        atMs: round(frame.start, 0),
        durationMs: round(frame.duration, 0),
        tasksMs: round(render - frame.start, 0),
        callbacksMs: round(Math.max(0, layout - render), 0),
        styleLayoutPaintMs: round(Math.max(0, end - layout), 0),
        scripts: frame.scripts ?? [],
      };
    });
}

export function longFigures(entries: { start: number; duration: number }[], from: number, to: number) {
  const within = entries.filter((entry) => entry.start >= from && entry.start < to);
  return {
    count: within.length,
    over100: within.filter((entry) => entry.duration > 100).length,
    maxMs: round(Math.max(0, ...within.map((entry) => entry.duration)), 0),
    totalMs: round(
      within.reduce((sum, entry) => sum + entry.duration, 0),
      0,
    ),
  };
}
