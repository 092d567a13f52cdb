// What the diff part of the bench prints and checks (bench/diff.ts measures).

import type { DiffBenchConfig, DiffDbResult } from './diff.js';
import type { Aim } from './lib/common.js';
import { int, ms, table } from './lib/format.js';
import { SCENARIO_COLUMNS, scenarioCellsWithClients } from './lib/scenario-cells.js';

export const DIFF_AIMS = { summaryP99Ms: 300, fileP99Ms: 50 };

export function printDiff(result: DiffDbResult, config: DiffBenchConfig): void {
  const title = result.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
  if (result.status === 'skipped') {
    console.log(`\n${title}: skipped — ${result.reason}`);
    return;
  }
  const { shape } = result;
  console.log(
    `\n${title} — diff of ${int(shape.files)} files, +${int(shape.additions)} −${int(shape.deletions)} lines ` +
      `(${int(shape.summaryBytes)} bytes), ${config.clients} clients; first summary ${ms(result.coldMs.summary)} ms, ` +
      `first file ${ms(result.coldMs.file)} ms; load average ` +
      `${result.loadAverage.start.join(' ')} → ${result.loadAverage.end.join(' ')}`,
  );
  console.log(
    table(
      ['scenario', 'clients', ...SCENARIO_COLUMNS.slice(1)],
      [
        ...result.scenarios.map(scenarioCellsWithClients),
        // One approval per fresh run: a median and a maximum, no percentiles past them.
        ...result.approve.map((a) => [
          `approve (${a.case})  POST …/approve, one fresh run each`,
          '1',
          int(a.runs.length),
          '0',
          ms(a.p50),
          '–',
          '–',
          ms(a.max),
          '–',
          '–',
        ]),
      ],
    ),
  );
  for (const entry of result.serverLog.slice(0, 5))
    console.log(`  server log ×${entry.count}: ${entry.line}`);
}

export function diffAims(results: readonly DiffDbResult[], config: DiffBenchConfig): Aim[] {
  const aims: Aim[] = [];
  for (const result of results) {
    if (result.status !== 'ok') continue;
    const db = result.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
    const shape = `${int(result.shape.files)} files, ${int(result.shape.additions + result.shape.deletions)} lines, ${config.clients} clients`;
    const summary = result.scenarios.find((s) => s.name === 'summary');
    const file = result.scenarios.find((s) => s.name === 'file');
    if (summary) {
      aims.push({
        name: `${db} diff summary p99 (${shape})`,
        target: `< ${DIFF_AIMS.summaryP99Ms} ms`,
        actual: summary.latency.p99,
        unit: 'ms',
        met: summary.latency.p99 < DIFF_AIMS.summaryP99Ms,
        part: 'diff',
      });
    }
    if (file) {
      aims.push({
        name: `${db} diff file p99 (${shape})`,
        target: `< ${DIFF_AIMS.fileP99Ms} ms`,
        actual: file.latency.p99,
        unit: 'ms',
        met: file.latency.p99 < DIFF_AIMS.fileP99Ms,
        part: 'diff',
      });
    }
  }
  return aims;
}
