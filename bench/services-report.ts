// The services part's table and lines (bench/services-proxy.ts measures them).
import { int, ms, table } from './lib/format.js';
import { SCENARIO_COLUMNS, scenarioCells } from './lib/scenario-cells.js';
import type { ServicesBenchConfig, ServicesResult, Way } from './services-proxy.js';

const REFERENCE_NOTES: Record<string, string> = {
  relay: ' (a raw TCP relay: the most a proxy in Node can keep here)',
  minimal: ' (a minimal HTTP proxy: the most one that reads HTTP can keep here)',
};

export function printServices(result: ServicesResult, config: ServicesBenchConfig): void {
  if (result.status !== 'ok') {
    console.log(`\nServices proxy: failed — ${result.reason}`);
    return;
  }
  console.log(
    `\nServices proxy — ${config.clients} clients, closed loop, ${config.rounds} interleaved rounds; load average ${result.loadAverage.start.join(' ')} → ${result.loadAverage.end.join(' ')}`,
  );
  console.log(
    table(
      [...SCENARIO_COLUMNS, 'CPU µs/req: srv', 'svc', 'gen'],
      result.scenarios.map((s) => [
        ...scenarioCells(s),
        ...(['server', 'service', 'bench'] as const).map((of) => {
          const us = result.cpuPerRequestUs[s.name as Way]?.[of];
          return us === undefined || Number.isNaN(us) ? '–' : int(us);
        }),
      ]),
    ),
  );
  for (const [way, cost] of Object.entries(result.ratios)) {
    console.log(
      `  ${way}: ${(cost.throughputRatio * 100).toFixed(0)} % of direct throughput, p50 +${ms(cost.addedP50Ms)} ms, p99 +${ms(cost.addedP99Ms)} ms${REFERENCE_NOTES[way] ?? ''}`,
    );
  }
  const { paced } = result;
  console.log(
    `  open loop at ${paced.ratePerSecond} req/s: direct p50 ${ms(paced.latency.direct.p50)} ms, p99 ${ms(paced.latency.direct.p99)} ms; ` +
      `preview p50 +${ms(paced.added.preview.addedP50Ms)}, p99 +${ms(paced.added.preview.addedP99Ms)} ms; ` +
      `path p50 +${ms(paced.added.path.addedP50Ms)}, p99 +${ms(paced.added.path.addedP99Ms)} ms; ` +
      `for reference, relay p99 +${ms(paced.added.relay.addedP99Ms)}, minimal p99 +${ms(paced.added.minimal.addedP99Ms)} ms${paced.errors ? ` (${paced.errors} errors)` : ''}`,
  );
  for (const entry of result.serverLog.slice(0, 5))
    console.log(`  server log ×${entry.count}: ${entry.line}`);
}
