// The review-page part of `npm run bench` (`npm run bench -- review-page`): issue 27's aims for the
// full-width review page of a 200-file, 20,000-line diff, in Chromium: the file tree painted
// under 1 s from the navigation's start, and scrolling (and j through the files) without a long
// task over 100 ms. The task is made through the real app (review-page-setup.ts); each visit is
// measured from inside the page (review-page-browser.ts).
import os from 'node:os';
import { type Aim, intEnv, summarizeLog } from './lib/common.js';
import { int, ms, table } from './lib/format.js';
import { BenchClient } from './lib/http.js';
import { round, summarize } from './lib/stats.js';
import { hasChromium, launchChromium, type VisitFigures, visitReviewPage } from './review-page-browser.js';
import { startReviewPageServer } from './review-page-server.js';
import { createReviewTask, type ReviewTask } from './review-page-setup.js';

export interface ReviewPageConfig {
  files: number;
  lines: number;
  /** Measured visits, each in a fresh browser context, after one unmeasured visit. */
  runs: number;
  /** Pixels the page scrolls each animation frame. */
  scrollStep: number;
  viewport: { width: number; height: number };
  quietMs: number;
  timeCapMs: number;
}

export function reviewPageConfig(): ReviewPageConfig {
  return {
    files: intEnv('BENCH_REVIEW_FILES', 200),
    lines: intEnv('BENCH_REVIEW_LINES', 20_000),
    runs: Math.max(1, intEnv('BENCH_REVIEW_RUNS', 5)),
    scrollStep: Math.max(1, intEnv('BENCH_REVIEW_SCROLL_STEP', 200)),
    viewport: { width: 1600, height: 1000 },
    quietMs: 1500,
    timeCapMs: intEnv('BENCH_REVIEW_TIME_CAP_S', 120) * 1000,
  };
}

export type ReviewPageResult =
  | {
      status: 'ok';
      database: 'pglite';
      chromium: string;
      /** The private production build of the web app the server serves (review-page-server.ts), ms. */
      webBuildMs: number;
      task: Omit<ReviewTask, 'projectId' | 'taskId' | 'runId'>;
      /** The unmeasured first visit (the server's and the OS's caches warm up), for reference. */
      firstVisit: VisitFigures;
      visits: VisitFigures[];
      summary: {
        treePaintMs: { p50: number; max: number };
        treeNextFrameMs: { p50: number; max: number };
        fcpMs: { p50: number; max: number };
        diffResponseEndMs: { p50: number; max: number };
        loadLongTaskMaxMs: number;
        loadLongTasksOver100: number;
        scrollLongTaskMaxMs: number;
        scrollLongTasksOver100: number;
        keysLongTaskMaxMs: number;
        keysLongTasksOver100: number;
        scrollMaxFrameGapMs: number;
      };
      loadAverage: { start: number[]; end: number[] };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped' | 'error'; reason: string };

const loadavg = () => os.loadavg().map((value) => round(value, 2));

export async function benchReviewPage(config: ReviewPageConfig): Promise<ReviewPageResult> {
  if (!hasChromium()) return { status: 'skipped', reason: 'no Chromium (set CHROMIUM_PATH)' };
  const bench = await startReviewPageServer({ AUTOCODER_SIMULATOR_DELAY_MS: '0' });
  const browser = await launchChromium();
  try {
    const owner = new BenchClient(false, bench.port);
    const task = await createReviewTask(owner, bench.port, { files: config.files, lines: config.lines });
    const { shape } = task;
    console.log(
      `  the task's diff: ${int(shape.files)} files (${shape.modified} modified, ${shape.added} added), ` +
        `+${int(shape.additions)} −${int(shape.deletions)} lines, ${shape.languages.length} languages, ` +
        `longest line ${int(shape.longestLine)} characters, ${int(shape.summaryBytes)} bytes of JSON ` +
        `(set up in ${(task.setupMs / 1000).toFixed(1)} s)`,
    );
    const visit = () =>
      visitReviewPage(browser, {
        baseUrl: `http://127.0.0.1:${bench.port}`,
        cookie: owner.cookie,
        reviewPath: `/projects/${task.projectId}/tasks/${task.taskId}/review`,
        files: shape.files,
        scrollStep: config.scrollStep,
        viewport: config.viewport,
        quietMs: config.quietMs,
        timeCapMs: config.timeCapMs,
      });
    const start = loadavg();
    const firstVisit = await visit();
    printVisit('first (not counted)', firstVisit);
    const visits: VisitFigures[] = [];
    for (let index = 0; index < config.runs; index++) {
      const figures = await visit();
      visits.push(figures);
      printVisit(`run ${index + 1}/${config.runs}`, figures);
    }
    const p50max = (values: number[]) => {
      const summary = summarize(values);
      return { p50: summary.p50, max: summary.max };
    };
    const max = (values: number[]) => Math.max(0, ...values);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    return {
      status: 'ok',
      database: 'pglite',
      chromium: browser.version(),
      webBuildMs: round(bench.webBuildMs, 0),
      task: { branch: task.branch, shape, setupMs: round(task.setupMs, 0) },
      firstVisit,
      visits,
      summary: {
        treePaintMs: p50max(visits.map((entry) => entry.treePaintMs)),
        treeNextFrameMs: p50max(visits.map((entry) => entry.treeNextFrameMs)),
        fcpMs: p50max(visits.map((entry) => entry.fcpMs ?? Number.NaN)),
        diffResponseEndMs: p50max(visits.map((entry) => entry.diffResponseEndMs ?? Number.NaN)),
        loadLongTaskMaxMs: max(visits.map((entry) => entry.load.maxMs)),
        loadLongTasksOver100: sum(visits.map((entry) => entry.load.over100)),
        scrollLongTaskMaxMs: max(visits.map((entry) => entry.scroll.maxMs)),
        scrollLongTasksOver100: sum(visits.map((entry) => entry.scroll.over100)),
        keysLongTaskMaxMs: max(visits.map((entry) => entry.keys.maxMs)),
        keysLongTasksOver100: sum(visits.map((entry) => entry.keys.over100)),
        scrollMaxFrameGapMs: max(visits.map((entry) => entry.scroll.maxFrameGapMs)),
      },
      loadAverage: { start, end: loadavg() },
      serverLog: summarizeLog(bench.server.output()),
    };
  } catch (error) {
    return {
      status: 'error',
      reason: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  } finally {
    await browser.close();
    await bench.stop();
  }
}

function printVisit(label: string, visit: VisitFigures) {
  console.log(
    `  ${label.padEnd(20)} tree painted ${ms(visit.treePaintMs)} ms (${visit.treePaintSource === 'element-timing' ? `Element Timing; next frame ${ms(visit.treeNextFrameMs)} ms` : 'next frame'}, diff in ${ms(visit.diffResponseEndMs)} ms` +
      `${visit.diffRequests > 1 ? `, ${visit.diffRequests} diff requests` : ''})` +
      `  long tasks: load ${visit.load.count} (max ${ms(visit.load.maxMs)} ms)` +
      `, scroll ${visit.scroll.count} (max ${ms(visit.scroll.maxMs)} ms, ${visit.scroll.frames} frames${visit.scroll.reachedBottom ? '' : ', NOT at the bottom'})` +
      `, j ${visit.keys.count} (max ${ms(visit.keys.maxMs)} ms${visit.keys.reachedLast ? '' : ', NOT at the last file'})` +
      `${visit.pageErrors.length ? `  ${visit.pageErrors.length} page errors: ${visit.pageErrors[0]}` : ''}`,
  );
  const cpu = (figures: { renderer: { runMs: number; waitMs: number } | null }) =>
    figures.renderer ? `${int(figures.renderer.runMs)} / ${int(figures.renderer.waitMs)}` : '–';
  console.log(
    `  ${''.padEnd(20)} renderer main thread ran / waited for a CPU (ms): load ${cpu(visit.load)}, ` +
      `scroll ${cpu(visit.scroll)}, j ${cpu(visit.keys)}`,
  );
  for (const [phase, frames] of [
    ['load', visit.load.worstFrames],
    ['scroll', visit.scroll.worstFrames],
    ['j', visit.keys.worstFrames],
  ] as const) {
    const worst = frames[0];
    if (worst && worst.durationMs > 100)
      console.log(
        `  ${''.padEnd(20)} longest ${phase} frame ${worst.durationMs} ms at ${worst.atMs} ms: tasks ${worst.tasksMs} ms, ` +
          `callbacks ${worst.callbacksMs} ms, style/layout/paint ${worst.styleLayoutPaintMs} ms` +
          `${worst.scripts[0] ? `; longest script ${worst.scripts[0].duration} ms (${worst.scripts[0].invoker})` : ''}`,
      );
  }
}

export function reviewPageAims(result: ReviewPageResult): Aim[] {
  const ok = result.status === 'ok';
  const paint = ok ? result.summary.treePaintMs : null;
  const scroll = ok ? Math.max(result.summary.scrollLongTaskMaxMs, result.summary.keysLongTaskMaxMs) : null;
  return [
    {
      name: 'review page of 200 files / 20,000 lines: first paint of the file tree, p50',
      target: '< 1 s',
      actual: paint?.p50 ?? null,
      unit: 'ms',
      met: paint ? paint.p50 < 1000 : null,
      part: 'review-page',
    },
    {
      name: 'the same, slowest visit',
      target: '< 1 s',
      actual: paint?.max ?? null,
      unit: 'ms',
      met: paint ? paint.max < 1000 : null,
      part: 'review-page',
    },
    {
      name: 'review page: longest task while scrolling to the bottom and pressing j through every file',
      target: '≤ 100 ms',
      actual: scroll,
      unit: 'ms',
      met: scroll === null ? null : scroll <= 100,
      part: 'review-page',
    },
  ];
}

export function printReviewPage(result: ReviewPageResult, config: ReviewPageConfig): void {
  if (result.status !== 'ok') {
    console.log(`  ${result.status}: ${result.reason}`);
    return;
  }
  console.log(
    `  Chromium ${result.chromium}, headless, ${config.viewport.width}×${config.viewport.height}, no CPU throttling; ` +
      `each visit in a fresh context (empty HTTP cache), after one unmeasured visit; scroll ${config.scrollStep} px a frame`,
  );
  const row = (label: string, visit: VisitFigures) => [
    label,
    ms(visit.diffResponseEndMs),
    ms(visit.fcpMs),
    ms(visit.treePaintMs),
    ms(visit.treeNextFrameMs),
    `${visit.load.count} / ${visit.load.over100}`,
    ms(visit.load.maxMs),
    `${visit.scroll.count} / ${visit.scroll.over100}`,
    ms(visit.scroll.maxMs),
    ms(visit.scroll.maxFrameGapMs),
    `${visit.keys.count} / ${visit.keys.over100}`,
    ms(visit.keys.maxMs),
    int(visit.domNodes),
  ];
  console.log(
    table(
      [
        'visit',
        'diff ms',
        'FCP ms',
        'tree ms',
        'next frame',
        'load LT/>100',
        'max',
        'scroll LT/>100',
        'max',
        'frame gap',
        'j LT/>100',
        'max',
        'DOM nodes',
      ],
      [
        row('first (not counted)', result.firstVisit),
        ...result.visits.map((visit, index) => row(`run ${index + 1}`, visit)),
      ],
    ),
  );
  const { summary } = result;
  console.log(
    `  tree painted p50 ${ms(summary.treePaintMs.p50)} ms, max ${ms(summary.treePaintMs.max)} ms ` +
      `(the frame after: p50 ${ms(summary.treeNextFrameMs.p50)} ms, max ${ms(summary.treeNextFrameMs.max)} ms); ` +
      `long tasks over 100 ms: loading ${summary.loadLongTasksOver100} (max ${ms(summary.loadLongTaskMaxMs)} ms), ` +
      `scrolling ${summary.scrollLongTasksOver100} (max ${ms(summary.scrollLongTaskMaxMs)} ms), ` +
      `j ${summary.keysLongTasksOver100} (max ${ms(summary.keysLongTaskMaxMs)} ms); ` +
      `load average ${result.loadAverage.start.join(' ')} → ${result.loadAverage.end.join(' ')}`,
  );
}

export async function runReviewPagePart() {
  const config = reviewPageConfig();
  console.log(
    `\n=== Review page: a task in Review whose branch changes ${config.files} files by ${int(config.lines)} lines, ` +
      `opened ${config.runs} times in Chromium, scrolled to the bottom and stepped through with j`,
  );
  const result = await benchReviewPage(config);
  return {
    aims: reviewPageAims(result),
    print: () => {
      console.log('\n--- Review page (issue 27)');
      printReviewPage(result, config);
    },
    json: () => ({ reviewPage: { config, ...result } }),
    failed: result.status === 'error',
  };
}
