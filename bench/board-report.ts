// The board part's report: its table per database and its aims (see board.ts).

import { BOARD_AIMS, type BoardConfig, type BoardDbResult } from './board.js';
import type { Aim } from './lib/common.js';
import { int, table } from './lib/format.js';
import type { ScenarioResult } from './lib/load.js';
import { SCENARIO_COLUMNS, scenarioCells } from './lib/scenario-cells.js';

/** The server's CPU time per answered request, in µs: what a change costs, whatever the load average. */
function cpuPerRequestUs(s: ScenarioResult): string {
  const answered = s.ok + s.errors + s.rateLimited;
  if (s.serverCpuPercent === null || answered === 0) return '–';
  return int(((s.serverCpuPercent / 100) * s.durationMs * 1000) / answered);
}

export function printBoard(result: BoardDbResult, config: BoardConfig): void {
  const title = result.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
  if (result.status === 'skipped') {
    console.log(`\n${title}: skipped — ${result.reason}`);
    return;
  }
  console.log(
    `\n${title} — board of ${int(config.tasks)} tasks, ${config.clients} clients; one list is ` +
      `${int(result.bytes.json)} bytes (${int(result.bytes.gzip)} gzipped, whole tasks ${int(result.bytes.full)}); ` +
      `load average ${result.loadAverage.start.join(' ')} → ${result.loadAverage.end.join(' ')}`,
  );
  console.log(
    table(
      [...SCENARIO_COLUMNS, 'µs/req'],
      result.scenarios.map((s) => [...scenarioCells(s), cpuPerRequestUs(s)]),
    ),
  );
  const { fresh, notModified, writes } = result.changing;
  console.log(`  changing: ${writes} moves; ${int(fresh)} answers were 200, ${int(notModified)} were 304`);
  for (const entry of result.serverLog.slice(0, 5))
    console.log(`  server log ×${entry.count}: ${entry.line}`);
}

export function boardAims(results: readonly BoardDbResult[], config: BoardConfig): Aim[] {
  const aims: Aim[] = [];
  for (const result of results) {
    if (result.status !== 'ok') continue;
    const db = result.database === 'pglite' ? 'PGlite' : 'PostgreSQL';
    // The aim holds on PostgreSQL for what a browser sends (gzip accepted, its ETag sent back);
    // PGlite's figures, and the list without gzip (155 kB an answer), are shown for reference.
    for (const name of ['list-gzip', 'list-304', 'changing', 'list'] as const) {
      const s = result.scenarios.find((entry) => entry.name === name);
      if (!s) continue;
      const binding = result.database === 'postgres' && name !== 'list';
      aims.push({
        name: `${db} board ${name} p99 (${int(config.tasks)} tasks, ${config.clients} clients)${binding ? '' : ', for reference'}`,
        target: `< ${BOARD_AIMS.listP99Ms} ms`,
        actual: s.latency.p99,
        unit: 'ms',
        met: s.latency.p99 < BOARD_AIMS.listP99Ms,
        part: 'board',
      });
    }
  }
  return aims;
}
