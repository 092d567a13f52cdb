// The engines part's tables (bench/engines.ts), and the part as parts.ts runs it. No aims: the
// figures are AutoCoder's overhead around each engine, to compare the engines by.
import { benchEngines, type EnginesResult, enginesConfig } from './engines.js';
import type { EngineFigures } from './engines-analysis.js';
import type { Aim } from './lib/common.js';
import { ms, table } from './lib/format.js';
import type { LatencySummary } from './lib/stats.js';

export async function runEnginesPart(): Promise<{
  aims: Aim[];
  print: () => void;
  json: () => Record<string, unknown>;
}> {
  const config = enginesConfig();
  console.log(
    `\n=== Engines: ${config.warmup} untimed round(s), then ${config.runs} runs per engine (${config.engines.join(', ')}), interleaved, one at a time, ` +
      'on one server; the simulator at full speed' +
      (config.cancel
        ? `; one step per external engine cancelled mid-command (engine-sleep=${config.sleepSeconds})`
        : ''),
  );
  const result = await benchEngines(config);
  return {
    aims: [],
    print: () => {
      console.log('\n--- Engines');
      printEngines(result);
    },
    json: () => ({ engines: { config, ...result } }),
  };
}

const trio = (figures: LatencySummary | undefined) =>
  figures ? `${ms(figures.p50)} / ${ms(figures.p90)} / ${ms(figures.max)}` : '–';
const pair99 = (figures: LatencySummary | undefined) =>
  figures && figures.count > 0 ? `${ms(figures.p50)} / ${ms(figures.p99)}` : '–';
const p50 = (figures: LatencySummary | undefined) => (figures ? ms(figures.p50) : '–');
const spread = (figures: LatencySummary | undefined) =>
  figures ? `${ms(figures.p50)} (${ms(figures.min)}–${ms(figures.max)})` : '–';

export function printEngines(result: EnginesResult): void {
  const measured = result.engines.filter((entry) => entry.status === 'measured');
  for (const skipped of result.engines.filter((entry) => entry.status === 'skipped')) {
    console.log(`${skipped.engine}: skipped — ${skipped.reason}`);
  }
  if (measured.length === 0) return;
  const label = (entry: EngineFigures) => {
    const version = entry.cliVersion ?? entry.version;
    return version ? `${entry.engine} (${version})` : entry.engine;
  };
  console.log(
    `Sandbox ${result.sandbox}, PGlite, simulator in its own process with no chunk delay; load average ` +
      `${result.loadAverage.before.join(' ')} → ${result.loadAverage.after.join(' ')}; ${result.wallS} s in all.`,
  );
  console.log(
    '\nStart to first event, per coder step (ms): the step’s phase-change (server stamp) → received over SSE',
  );
  console.log(
    table(
      [
        'engine',
        'runs',
        'outcomes',
        'run wall p50',
        'steps',
        'first event p50/p90/max',
        'first tool call p50/p90/max',
      ],
      measured.map((entry) => [
        label(entry),
        String(entry.runs),
        Object.entries(entry.outcomes)
          .map(([outcome, count]) => `${outcome} ${count}`)
          .join(', '),
        p50(entry.runWallMs),
        String(entry.steps),
        trio(entry.firstEventMs),
        trio(entry.firstToolCallMs),
      ]),
    ),
  );
  console.log(
    '\nEvent to browser, coder timeline events (ms): data.timestamp (server) → the SSE client read it',
  );
  console.log(
    table(
      ['engine', 'events', 'all p50/p99', 'tool calls+results', 'p50/p99', 'text chunks', 'p50/p99', 'max'],
      measured.map((entry) => [
        entry.engine,
        String(entry.delivery?.all.count ?? 0),
        pair99(entry.delivery?.all),
        String(entry.delivery?.tools.count ?? 0),
        pair99(entry.delivery?.tools),
        String(entry.delivery?.text.count ?? 0),
        pair99(entry.delivery?.text),
        ms(entry.delivery?.all.max),
      ]),
    ),
  );
  console.log(
    '\nThe step’s time (ms, p50 with min–max): phase-change → next phase-change; the engine process from /proc',
  );
  console.log(
    table(
      [
        'engine',
        'step wall',
        'coder call',
        'engine process',
        'outside it',
        'engine share',
        'before spawn',
        'after exit',
        'spawn → 1st event',
        'tool calls',
      ],
      measured.map((entry) => [
        entry.engine,
        spread(entry.stepWallMs),
        p50(entry.callMs),
        spread(entry.engineMs),
        spread(entry.outsideEngineMs),
        entry.engineShare ? `${Math.round(entry.engineShare.p50 * 100)} %` : '–',
        p50(entry.beforeEngineMs),
        p50(entry.afterEngineMs),
        p50(entry.spawnToFirstEventMs),
        entry.toolCallsPerStep ? String(entry.toolCallsPerStep.p50) : '–',
      ]),
    ),
  );
  const cancels = measured.flatMap((entry) => (entry.cancel ? [entry.cancel] : []));
  if (cancels.length > 0) {
    console.log('\nCancel mid-step (one step each, its slow command running): ms from sending Cancel');
    console.log(
      table(
        [
          'engine',
          'outcome',
          'step ran',
          'cancel answered',
          'cancelled event',
          'no engine process',
          'no sandbox process',
          'run then',
        ],
        cancels.map((entry) => [
          entry.engine,
          entry.outcome === 'measured' ? 'measured' : `failed: ${entry.reason ?? ''}`,
          ms(entry.cancelledAfterMs),
          ms(entry.requestMs),
          ms(entry.toCancelledEventMs),
          ms(entry.toNoEngineProcessMs),
          ms(entry.toNoSandboxProcessMs),
          entry.runStatus ?? '–',
        ]),
      ),
    );
  }
  console.log(
    "\nThe machine during each engine's runs: the server's main thread (its event loop) on a CPU and " +
      'waiting for one, % of the time; how late the bench’s 10 ms timer fired (ms): its own event-loop lag, part of every delivery figure',
  );
  console.log(
    table(
      ['engine', 'server CPU', 'server waited', 'bench lag p50', 'p99', 'max'],
      measured.map((entry) => [
        entry.engine,
        entry.server ? `${entry.server.cpuPercent} %` : '–',
        entry.server ? `${entry.server.waitedPercent} %` : '–',
        ms(entry.benchLoopDelayMs?.p50),
        ms(entry.benchLoopDelayMs?.p99),
        ms(entry.benchLoopDelayMs?.max),
      ]),
    ),
  );
  console.log(
    `One /proc scan (every run, every ${result.bench.scanMs} ms) cost the bench ${result.bench.scanCpuMs ?? '–'} ms of CPU.`,
  );
}
