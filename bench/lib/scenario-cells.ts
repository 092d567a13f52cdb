// The columns the parts' tables share for one closed-loop scenario (board, diff, services).
import { int, ms } from './format.js';
import type { ScenarioResult } from './load.js';

/** The header of `scenarioCells`' columns. */
export const SCENARIO_COLUMNS = ['scenario', 'ok', 'err', 'p50', 'p90', 'p99', 'max', 'req/s', 'srv CPU'];

/** A scenario's row: name and label, answers, errors, latency percentiles, throughput, server CPU. */
export function scenarioCells(s: ScenarioResult): string[] {
  return [
    `${s.name}  ${s.label}`,
    int(s.ok),
    int(s.errors),
    ms(s.latency.p50),
    ms(s.latency.p90),
    ms(s.latency.p99),
    ms(s.latency.max),
    int(s.throughput),
    s.serverCpuPercent === null ? '–' : `${s.serverCpuPercent}%`,
  ];
}

/** The same with the scenario's number of clients after its name. */
export function scenarioCellsWithClients(s: ScenarioResult): string[] {
  const [name = '', ...rest] = scenarioCells(s);
  return [name, String(s.concurrency), ...rest];
}
