// The services proxy's aims, read from one services run (bench/services-proxy.ts). Issue 23 judges
// the proxy against the same run's minimal HTTP proxy reference, with the network isolation in
// place (every way reaches the service through its sandbox's bridge): a share of direct could not
// be judged with the load, the service and the proxy on two shared cores. The share of direct and
// the added p99 against direct stay beside them, for reference.
import type { Aim } from './lib/common.js';
import { round } from './lib/stats.js';
import { SERVICES_AIMS, type ServicesResult } from './services-proxy.js';

export function servicesAims(result: ServicesResult): Aim[] {
  if (result.status !== 'ok') return [];
  const minimal = result.ratios.minimal;
  const pacedMinimal = result.paced.added.minimal;
  return (['preview', 'path'] as const).flatMap((way) => {
    const cost = result.ratios[way];
    const share = cost.throughputRatio / minimal.throughputRatio;
    const overMinimal = round(result.paced.added[way].addedP99Ms - pacedMinimal.addedP99Ms, 2);
    return [
      {
        name: `service proxy (${way}) throughput vs the minimal HTTP proxy`,
        target: `≥ ${SERVICES_AIMS.shareOfMinimal * 100} %`,
        actual: round(share * 100, 1),
        unit: '%',
        met: share >= SERVICES_AIMS.shareOfMinimal,
        part: 'services' as const,
      },
      {
        // What the proxy adds to a request at a fixed rate below capacity (open loop), over what
        // the minimal proxy adds in the same run.
        name: `service proxy (${way}) added p99 at ${result.paced.ratePerSecond} req/s, over the minimal proxy's`,
        target: `≤ ${SERVICES_AIMS.overMinimalP99Ms} ms`,
        actual: overMinimal,
        unit: 'ms',
        met: overMinimal <= SERVICES_AIMS.overMinimalP99Ms,
        part: 'services' as const,
      },
      {
        name: `service proxy (${way}) throughput vs direct, for reference`,
        target: `≥ ${SERVICES_AIMS.throughputRatio * 100} %`,
        actual: round(cost.throughputRatio * 100, 1),
        unit: '%',
        met: cost.throughputRatio >= SERVICES_AIMS.throughputRatio,
        part: 'services' as const,
      },
      {
        name: `service proxy (${way}) added p99 at ${result.paced.ratePerSecond} req/s vs direct, for reference`,
        target: `< ${SERVICES_AIMS.addedP99Ms} ms`,
        actual: result.paced.added[way].addedP99Ms,
        unit: 'ms',
        met: result.paced.added[way].addedP99Ms < SERVICES_AIMS.addedP99Ms,
        part: 'services' as const,
      },
    ];
  });
}
