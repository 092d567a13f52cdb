// Issue 10's aims, read from one services run (bench/services-proxy.ts).
import type { Aim } from './lib/common.js';
import { round } from './lib/stats.js';
import { SERVICES_AIMS, type ServicesResult } from './services-proxy.js';

export function servicesAims(result: ServicesResult): Aim[] {
  if (result.status !== 'ok') return [];
  return (['preview', 'path'] as const).flatMap((way) => {
    const cost = result.ratios[way];
    return [
      {
        name: `service proxy (${way}) throughput vs direct`,
        target: `≥ ${SERVICES_AIMS.throughputRatio * 100} %`,
        actual: round(cost.throughputRatio * 100, 1),
        unit: '%',
        met: cost.throughputRatio >= SERVICES_AIMS.throughputRatio,
        part: 'services' as const,
      },
      {
        // What the proxy adds to a request: at a fixed rate below capacity (open loop). Saturated,
        // a closed loop's latency is clients ÷ throughput, so its p99 difference is the queueing
        // of the throughput ratio above; shown for reference.
        name: `service proxy (${way}) added p99 at ${result.paced.ratePerSecond} req/s (open loop)`,
        target: `< ${SERVICES_AIMS.addedP99Ms} ms`,
        actual: result.paced.added[way].addedP99Ms,
        unit: 'ms',
        met: result.paced.added[way].addedP99Ms < SERVICES_AIMS.addedP99Ms,
        part: 'services' as const,
      },
      {
        name: `service proxy (${way}) added p99 saturated (closed loop), for reference`,
        target: `< ${SERVICES_AIMS.addedP99Ms} ms`,
        actual: cost.addedP99Ms,
        unit: 'ms',
        met: cost.addedP99Ms < SERVICES_AIMS.addedP99Ms,
        part: 'services' as const,
      },
    ];
  });
}
