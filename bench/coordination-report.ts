// The coordination part's tables and aims (bench/coordination.ts measures).

import type { CoordinationServerResult } from './coordination.js';
import {
  CALLS,
  COORDINATION_AIMS,
  type CoordinationConfig,
  type LoadResult,
  STORE_OPS,
  type TransportResult,
} from './coordination-config.js';
import type { StoreDirectResult } from './coordination-store.js';
import type { Aim } from './lib/common.js';
import { int, ms, table } from './lib/format.js';

export interface CoordinationPartResult {
  direct: StoreDirectResult[];
  /**
   * The same agents over REST against a bare node server answering canned answers
   * (bench/coordination-floor.ts): what the machine alone costs at this load; null if it failed.
   */
  floor?: TransportResult | null;
  servers: CoordinationServerResult[];
}

const DB = { pglite: 'PGlite', postgres: 'PostgreSQL' } as const;
const STORE = { memory: 'in-process store', redis: 'Redis store' } as const;
const TRANSPORT = { rest: 'REST', mcp: 'MCP' } as const;

export function printCoordination(result: CoordinationPartResult, config: CoordinationConfig): void {
  console.log(
    `\n${config.agents} agents, each its own token; a cycle is check_status, post_status WRITING, post_status OPEN ` +
      `on its ${config.ownFiles} files and a shared one (${Math.ceil(config.agents / config.sharedFiles)} agents per shared file)`,
  );
  const directRows = result.direct.flatMap((entry) =>
    entry.status === 'ok'
      ? [...STORE_OPS.map((op) => [op, entry.ops[op]] as const), ['all', entry.all] as const].map(
          ([op, s]) => [
            `${STORE[entry.store]}, direct: ${op}`,
            int(s.count),
            ms(s.p50),
            ms(s.p90),
            ms(s.p99),
            ms(s.max),
          ],
        )
      : [[`${STORE[entry.store]}, direct: skipped (${entry.reason})`, '', '', '', '', '']],
  );
  console.log(table(['lock store called directly', 'calls', 'p50', 'p90', 'p99', 'max'], directRows));
  const floor = result.floor;
  if (floor)
    console.log(
      `\nHTTP floor — the same agents over REST against a bare node server answering canned answers ` +
        `(no auth, lock or lookup): p50 ${ms(floor.all.p50)} ms, p99 ${ms(floor.all.p99)} ms, ` +
        `${int(floor.callsPerSecond)} calls/s; its CPU ${floor.serverCpuMsPerCall?.toFixed(2) ?? '–'} ms/call, ` +
        `the agents' ${floor.benchCpuMsPerCall?.toFixed(2) ?? '–'} ms/call` +
        (floor.paced
          ? `; at ${int(floor.paced.ratePerSecond)} calls/s: p50 ${ms(floor.paced.all.p50)} ms, ` +
            `p99 ${ms(floor.paced.all.p99)} ms, max ${ms(floor.paced.all.max)} ms`
          : ''),
    );

  for (const server of result.servers) {
    const title = `${DB[server.database]}, ${STORE[server.store]}`;
    if (server.status === 'skipped') {
      console.log(`\n${title}: skipped — ${server.reason}`);
      continue;
    }
    console.log(
      `\n${title} — load average ${server.loadAverage.start.join(' ')} → ${server.loadAverage.end.join(' ')}`,
    );
    const rows = server.transports.flatMap((t) => {
      const closed = loadRows(t, (call) => `${TRANSPORT[t.transport]}  ${call}`, [
        t.serverCpuMsPerCall != null ? t.serverCpuMsPerCall.toFixed(2) : '',
        t.benchCpuMsPerCall != null ? t.benchCpuMsPerCall.toFixed(2) : '',
      ]);
      const paced = t.paced;
      if (!paced) return closed;
      const open = (call: string) =>
        `${TRANSPORT[t.transport]}  ${call}, open loop at ${int(paced.ratePerSecond)}/s`;
      return [...closed, ...loadRows(paced, open, ['', ''])];
    });
    console.log(
      table(
        [
          'transport  call',
          'calls',
          'p50',
          'p90',
          'p99',
          'max',
          'calls/s',
          'srv CPU',
          'CPU ms/call',
          'gen ms/call',
        ],
        rows,
      ),
    );
    for (const t of server.transports) {
      const said = Object.entries(t.outcomes)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([outcome, count]) => `${outcome} ×${count}`)
        .join(', ');
      console.log(`  ${TRANSPORT[t.transport]} answers: ${said}`);
      if (t.errors)
        console.log(`  ${TRANSPORT[t.transport]}: ${t.errors} errors ${JSON.stringify(t.errorKinds)}`);
      if (t.capped)
        console.log(`  ${TRANSPORT[t.transport]}: stopped by the time cap after ${t.cycles} cycles`);
    }
    for (const entry of server.serverLog.slice(0, 5))
      console.log(`  server log ×${entry.count}: ${entry.line}`);
  }
}

/**
 * A row per call and one for all calls (p50 … max); the all-calls row also has the calls per second,
 * the server's CPU and then `cpuColumns`, the others blanks in their place.
 */
function loadRows(load: LoadResult, name: (call: string) => string, cpuColumns: string[]): string[][] {
  const totals = [
    int(load.callsPerSecond),
    load.serverCpuPercent !== null ? `${load.serverCpuPercent}%` : '',
    ...cpuColumns,
  ];
  return [...CALLS.map((call) => [call, load.calls[call]] as const), ['all calls', load.all] as const].map(
    ([call, s]) => [
      name(call),
      int(s.count),
      ms(s.p50),
      ms(s.p90),
      ms(s.p99),
      ms(s.max),
      ...(call === 'all calls' ? totals : totals.map(() => '')),
    ],
  );
}

/**
 * Issue 9's aims: p99 < 10 ms for the in-process store itself (direct calls), < 25 ms per call over
 * HTTP (REST and MCP, every database and store; the worst call's p99 counts). Over HTTP the aim is
 * judged where the 50 agents offer a fixed rate (open loop), so that the figure is what a call costs;
 * the saturating closed loop, where every agent calls again the moment it is answered and the p99 is
 * mostly the queue of the other 49 (about agents ÷ throughput), is shown beside it for reference. The
 * Redis store called directly is shown for reference.
 */
export function coordinationAims(result: CoordinationPartResult, config: CoordinationConfig): Aim[] {
  const aims: Aim[] = [];
  for (const entry of result.direct) {
    if (entry.status !== 'ok') continue;
    aims.push({
      name: `${STORE[entry.store]} called directly, p99 (${config.agents} agents)${entry.store === 'redis' ? ', for reference' : ''}`,
      target: `< ${COORDINATION_AIMS.storeP99Ms} ms`,
      actual: entry.all.p99,
      unit: 'ms',
      met: entry.all.p99 < COORDINATION_AIMS.storeP99Ms,
      part: 'coordination',
    });
  }
  const worstP99 = (calls: LoadResult['calls']) => Math.max(...CALLS.map((call) => calls[call].p99));
  for (const server of result.servers) {
    if (server.status !== 'ok') continue;
    for (const t of server.transports) {
      const where = `${DB[server.database]}, ${STORE[server.store]}, ${TRANSPORT[t.transport]}`;
      if (t.paced) {
        const worst = worstP99(t.paced.calls);
        aims.push({
          name: `${where}: check_status / post_status p99, worst call (${config.agents} agents, ${int(t.paced.ratePerSecond)} calls/s offered)`,
          target: `< ${COORDINATION_AIMS.httpP99Ms} ms`,
          actual: worst,
          unit: 'ms',
          met: t.paced.errors === 0 && worst < COORDINATION_AIMS.httpP99Ms,
          part: 'coordination',
        });
      }
      const worst = worstP99(t.calls);
      aims.push({
        name: `${where}: the same, saturated (closed loop, ${int(t.callsPerSecond)} calls/s), for reference`,
        target: `< ${COORDINATION_AIMS.httpP99Ms} ms`,
        actual: worst,
        unit: 'ms',
        met: t.errors === 0 && worst < COORDINATION_AIMS.httpP99Ms,
        part: 'coordination',
      });
    }
  }
  return aims;
}
