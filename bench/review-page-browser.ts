// The review-page part in Chromium (playwright-core, Debian's Chromium, headless, as
// tests/e2e/browser.ts launches it): one visit of the review page in a fresh browser context,
// measured from inside the page.
//
// - First paint of the tree: a requestAnimationFrame loop, installed before any script of the page
//   runs, looks each frame for the file tree holding every file; the figure is performance.now()
//   in the frame after the one that found it, i.e. once that frame (its style, layout and paint)
//   has been produced. performance.now() counts from the navigation's start.
// - Long tasks: a buffered PerformanceObserver of 'longtask' (tasks over 50 ms) from the same
//   early script, and 'long-animation-frame' entries beside them (frames whose work took over
//   50 ms, rendering included), split by phase: loading, scrolling, j presses.
// - Scrolling: the page's scroller moved by `scrollStep` px each animation frame to the bottom
//   (main-thread scrolling: every step waits for the page), then j pressed once per file, each
//   press followed by two frames.
//
// The in-page code and the figures made of its entries are in review-page-scripts.ts.
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { SESSION_COOKIE } from './lib/http.js';
import { round } from './lib/stats.js';
import { type RendererCpu, rendererDelta, rendererSnapshot } from './review-page-cpu.js';
import {
  initScript,
  type LongFrame,
  type LongTaskFigures,
  longFigures,
  type RawFrame,
  STATE,
  scrollScript,
  TO_TOP,
  TWO_FRAMES,
  type VisitFigures,
  worstFrames,
} from './review-page-scripts.js';

export type { LongFrame, LongTaskFigures, RendererCpu, VisitFigures };

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const hasChromium = () => existsSync(CHROMIUM_PATH);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** `promise`, or an error naming `what` once `ms` have passed: a page that stops answering fails the visit. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long one step in the page (a state read, two frames) may take. */
const STEP_MS = 30_000;

export interface VisitOptions {
  baseUrl: string;
  cookie: string;
  reviewPath: string;
  files: number;
  scrollStep: number;
  viewport: { width: number; height: number };
  /** Loading counts as settled once no long task and no request has run for this long. */
  quietMs: number;
  timeCapMs: number;
}

/** One visit, in a fresh context (an empty HTTP cache: the app's scripts and the diff are fetched). */
export async function visitReviewPage(browser: Browser, options: VisitOptions): Promise<VisitFigures> {
  const context = await browser.newContext({ viewport: options.viewport });
  try {
    const [name, ...rest] = options.cookie.split('=');
    if (name !== SESSION_COOKIE) throw new Error('no session cookie');
    await context.addCookies([{ name, value: rest.join('='), url: options.baseUrl }]);
    await context.addInitScript({ content: initScript(options.files) });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
    });
    let inFlight = 0;
    let lastRequestAt = Date.now();
    const track = (delta: number) => (request: { resourceType(): string }) => {
      if (request.resourceType() === 'eventsource') return;
      inFlight += delta;
      lastRequestAt = Date.now();
    };
    page.on('request', track(1));
    page.on('requestfinished', track(-1));
    page.on('requestfailed', track(-1));

    const cpuAtStart = rendererSnapshot();
    await page.goto(`${options.baseUrl}${options.reviewPath}`, { waitUntil: 'commit', timeout: STEP_MS });
    const deadline = Date.now() + options.timeCapMs;
    let state: { now: number; treePaintAt: number | null; lastLongEnd: number };
    for (;;) {
      state = await within(page.evaluate(STATE), STEP_MS, 'reading the page’s state');
      const settled =
        state.treePaintAt !== null &&
        inFlight <= 0 &&
        Date.now() - lastRequestAt >= options.quietMs &&
        state.now - Math.max(state.lastLongEnd, state.treePaintAt) >= options.quietMs;
      if (settled) break;
      if (Date.now() > deadline)
        throw new Error(
          state.treePaintAt === null
            ? `the tree of ${options.files} files did not appear within ${options.timeCapMs / 1000} s`
            : `the page did not settle within ${options.timeCapMs / 1000} s`,
        );
      await page.waitForTimeout(100);
    }

    const cpuAtScroll = rendererSnapshot();
    const scroll = (await within(
      page.evaluate(scrollScript(options.scrollStep, options.timeCapMs)),
      options.timeCapMs + STEP_MS,
      'scrolling to the bottom',
    )) as {
      start: number;
      end: number;
      frames: number;
      maxGap: number;
      over100: number;
      scrolled: number;
      reachedBottom: boolean;
    };
    const keysStart = (await within(page.evaluate(TO_TOP), STEP_MS, 'scrolling to the top')) as number;
    const cpuAtKeys = rendererSnapshot();
    let maxPressMs = 0;
    let presses = 0;
    const keysDeadline = Date.now() + options.timeCapMs;
    for (; presses < options.files && Date.now() < keysDeadline; presses++) {
      const before = (await within(
        page.evaluate('performance.now()'),
        STEP_MS,
        'reading the clock',
      )) as number;
      await within(page.keyboard.press('j'), STEP_MS, `pressing j (${presses + 1})`);
      const after = (await within(
        page.evaluate(TWO_FRAMES),
        STEP_MS,
        `two frames after j (${presses + 1})`,
      )) as number;
      maxPressMs = Math.max(maxPressMs, after - before);
    }
    const keysEnd = (await within(
      page.evaluate(TWO_FRAMES),
      STEP_MS,
      'two frames after the last j',
    )) as number;
    const cpuAtEnd = rendererSnapshot();
    const [lastTreeFile, currentFile] = (await within(
      page.evaluate(`[
        [...document.querySelectorAll('[data-testid="review-tree-file"]')].at(-1)?.getAttribute('data-path') ?? null,
        document.querySelector('[data-testid="review-file"][data-current]')?.getAttribute('data-path') ?? null,
      ]`),
      STEP_MS,
      'reading the current file',
    )) as [string | null, string | null];

    const collected = (await within(
      page.evaluate(`(() => {
      const b = window.__reviewBench;
      const paint = performance.getEntriesByName('first-contentful-paint')[0];
      const diffs = performance.getEntriesByType('resource').filter((e) => /\\/api\\/pipeline\\/runs\\/[^/]+\\/diff$/.test(new URL(e.name).pathname));
      const diff = diffs[0];
      return {
        longTasks: b.longTasks, loafs: b.loafs, treeFoundAt: b.treeFoundAt, treePaintAt: b.treePaintAt,
        treeElementPaint: b.treeElementPaint,
        errors: b.errors, fcp: paint ? paint.startTime : null,
        diffEnd: diff ? diff.responseEnd : null, diffBytes: diff ? diff.transferSize : null, diffRequests: diffs.length,
        domNodes: document.getElementsByTagName('*').length,
      };
    })()`),
      STEP_MS,
      'collecting the figures',
    )) as {
      longTasks: { start: number; duration: number }[];
      loafs: RawFrame[];
      treeFoundAt: number;
      treePaintAt: number;
      treeElementPaint: number | null;
      errors: string[];
      fcp: number | null;
      diffEnd: number | null;
      diffBytes: number | null;
      diffRequests: number;
      domNodes: number;
    };
    pageErrors.push(...collected.errors);
    const loafMax = (from: number, to: number) => longFigures(collected.loafs, from, to).maxMs;
    // The element's paint counts only if it came with the frame that found the full tree or later:
    // one painted earlier, before every file was listed, would not be the tree's paint.
    const elementPaint = collected.treeElementPaint;
    const timed = elementPaint !== null && elementPaint >= collected.treeFoundAt - 1;
    return {
      treePaintMs: round(timed ? elementPaint : collected.treePaintAt, 1),
      treePaintSource: timed ? 'element-timing' : 'next-frame',
      treeFoundMs: round(collected.treeFoundAt, 1),
      treeNextFrameMs: round(collected.treePaintAt, 1),
      fcpMs: collected.fcp === null ? null : round(collected.fcp, 1),
      diffResponseEndMs: collected.diffEnd === null ? null : round(collected.diffEnd, 1),
      diffTransferBytes: collected.diffBytes,
      diffRequests: collected.diffRequests,
      domNodes: collected.domNodes,
      load: {
        ...longFigures(collected.longTasks, 0, scroll.start),
        loafMaxMs: loafMax(0, scroll.start),
        renderer: rendererDelta(cpuAtStart, cpuAtScroll),
        worstFrames: worstFrames(collected.loafs, 0, scroll.start),
        quietAfterMs: round(Math.max(state.lastLongEnd, state.treePaintAt ?? 0), 0),
      },
      scroll: {
        ...longFigures(collected.longTasks, scroll.start, scroll.end),
        loafMaxMs: loafMax(scroll.start, scroll.end),
        renderer: rendererDelta(cpuAtScroll, cpuAtKeys),
        durationMs: round(scroll.end - scroll.start, 0),
        frames: scroll.frames,
        maxFrameGapMs: round(scroll.maxGap, 1),
        framesOver100: scroll.over100,
        scrolledPx: Math.round(scroll.scrolled),
        reachedBottom: scroll.reachedBottom,
        worstFrames: worstFrames(collected.loafs, scroll.start, scroll.end),
      },
      keys: {
        ...longFigures(collected.longTasks, keysStart, keysEnd),
        loafMaxMs: loafMax(keysStart, keysEnd),
        renderer: rendererDelta(cpuAtKeys, cpuAtEnd),
        worstFrames: worstFrames(collected.loafs, keysStart, keysEnd),
        presses,
        durationMs: round(keysEnd - keysStart, 0),
        maxPressMs: round(maxPressMs, 1),
        reachedLast: lastTreeFile !== null && lastTreeFile === currentFile,
      },
      pageErrors,
    };
  } finally {
    await within(context.close(), STEP_MS, 'closing the browser context').catch((error: unknown) =>
      console.log(`  ${error instanceof Error ? error.message : String(error)}`),
    );
  }
}
