// The pipeline part's report: one table and its notes per database, and the aims.
import { type Aim, firstLine } from '../lib/common.js';
import { int, ms, table } from '../lib/format.js';
import { type LatencySummary, round } from '../lib/stats.js';
import { PIPELINE_AIMS, type PipelineConfig } from './config.js';
import type { PipelineDbResult } from './result.js';

const mb = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? '–' : `${int(bytes / 1024 / 1024)} MB`;

const title = (kind: 'pglite' | 'postgres') => (kind === 'pglite' ? 'PGlite' : 'PostgreSQL');

/** The table and notes of one database. */
export function printPipeline(result: PipelineDbResult, config: PipelineConfig): void {
  if (result.status === 'skipped') {
    console.log(`\n${title(result.database)}: skipped — ${result.reason}`);
    return;
  }
  if (result.status === 'error') {
    console.log(`\n${title(result.database)}: FAILED — ${firstLine(result.error)}`);
    for (const entry of result.serverLog.slice(0, 5))
      console.log(`  server log ×${entry.count}: ${entry.line}`);
    return;
  }
  const r = result;
  console.log(
    `\n${title(r.database)} — ${r.runs.requested} runs at once on the simulator (no delay), ${r.setup.users} users, ` +
      `${r.setup.sseClients} SSE clients (${config.clientsPerTask} per task); load average ` +
      `${r.loadAverage.start.join(' ')} → ${r.loadAverage.end.join(' ')}`,
  );
  const statuses = Object.entries(r.runs.statuses)
    .map(([status, count]) => `${count} ${status}`)
    .join(', ');
  console.log(
    `  runs: ${r.runs.started} started, ${statuses}; ${r.runs.agentCalls} agent calls; all ended in ` +
      `${ms(r.runs.spanMs)} ms${r.runs.capped ? ` — TIME CAP REACHED, ${r.runs.unfinished} unfinished` : ''}`,
  );
  const row = (name: string, s: LatencySummary) => [
    name,
    int(s.count),
    ms(s.min),
    ms(s.mean),
    ms(s.p50),
    ms(s.p90),
    ms(s.p99),
    ms(s.max),
  ];
  console.log(
    table(
      ['ms', 'n', 'min', 'mean', 'p50', 'p90', 'p99', 'max'],
      [
        row('start-pipeline latency (all at once)', r.startLatencyMs),
        row('SSE delivery, push → client', r.delivery.latencyMs),
        ...Object.entries(r.delivery.byType)
          .sort((a, b) => b[1].count - a[1].count)
          .map(([type, s]) => row(`  ${type}`, s)),
        row("orchestrator's own time per run", r.orchestrator.ownMsPerRun),
        row('agent calls streaming, per run', r.orchestrator.providerMsPerRun),
        row('run wall time (completedAt − startedAt)', r.orchestrator.runWallMs),
        row('start sent → pipeline-complete read', r.endToEndMs),
      ],
    ),
  );
  const sharePct = round(r.orchestrator.ownShare * 100, 1);
  const figures: [string, string][] = [
    ['output tokens streamed', int(r.tokens.output)],
    [
      'database writes (INSERT/UPDATE/DELETE)',
      `${int(r.dbWrites.writes)} = ${r.dbWrites.writesPer1kTokens ?? '–'} per 1,000 tokens; ${r.dbWrites.writesPerRun ?? '–'} per run, of which ${r.dbWrites.otherWritesPerRun ?? '–'} not the event log's`,
    ],
    [
      'database statements',
      `${int(r.dbWrites.statements)} = ${r.dbWrites.statementsPer1kTokens ?? '–'} per 1,000 tokens`,
    ],
    [
      'event log',
      `${int(r.eventLog.persisted)} events in ${int(r.eventLog.inserts)} INSERTs (${r.eventLog.eventsPerInsert ?? '–'} per INSERT)`,
    ],
    [
      'events delivered',
      `${int(r.delivery.delivered)} (${int(r.delivery.distinct)} distinct), ${int(r.delivery.perSecond)}/s`,
    ],
    [
      'delivery checks',
      `${r.delivery.idMismatches} id mismatches, ${r.delivery.missing} missing, ${r.delivery.outOfOrder} out of order, ${r.delivery.streamErrors} stream errors`,
    ],
    ["orchestrator's share of run wall time", `${sharePct}%`],
    [
      'server memory (VmRSS)',
      `idle ${mb(r.memory.idleRssBytes)}, peak ${mb(r.memory.peakRssBytes)}, after ${mb(r.memory.afterRssBytes)}; metrics rss ${mb(r.memory.metricsRssBytes)}, heap ${mb(r.memory.metricsHeapUsedBytes)}`,
    ],
    [
      'server CPU during the runs',
      `${r.serverCpuPercent ?? '–'}% of a core; event loop thread ran ${r.serverMainThread?.runPercent ?? '–'}% and waited for a CPU ${r.serverMainThread?.runQueueWaitPercent ?? '–'}% of the time; git etc. ${r.serverChildrenCpuPercent ?? '–'}%`,
    ],
    [
      'simulator CPU during the runs',
      `${r.simulatorCpuPercent ?? '–'}% of a core (a remote provider's, here on this machine)`,
    ],
    [
      'bench CPU during the runs',
      `${r.benchCpuPercent}%, waited for a CPU ${r.benchRunQueueWaitPercent ?? '–'}% of the time; event-loop delay p99 ${r.benchEventLoopDelayMs.p99} ms, max ${r.benchEventLoopDelayMs.max} ms`,
    ],
  ];
  const width = Math.max(...figures.map(([label]) => label.length));
  for (const [label, value] of figures) console.log(`  ${label.padEnd(width)}  ${value}`);
  if (Object.keys(r.runs.startErrors).length)
    console.log(`  start-pipeline errors: ${JSON.stringify(r.runs.startErrors)}`);
  if (Object.keys(r.delivery.streamErrorKinds).length)
    console.log(`  stream errors: ${JSON.stringify(r.delivery.streamErrorKinds)}`);
  for (const entry of r.serverLog.slice(0, 5)) console.log(`  server log ×${entry.count}: ${entry.line}`);
}

/** Three aims per database measured. */
export function pipelineAims(results: readonly PipelineDbResult[], config: PipelineConfig): Aim[] {
  const aims: Aim[] = [];
  for (const result of results) {
    const name = title(result.database);
    const ok = result.status === 'ok' ? result : null;
    const delivery = ok ? ok.delivery.latencyMs.p99 : null;
    const writes = ok ? ok.dbWrites.writesPer1kTokens : null;
    const start = ok ? ok.startLatencyMs.p99 : null;
    const valid = (value: number | null) => value !== null && !Number.isNaN(value);
    aims.push(
      {
        name: `${name}: SSE delivery p99, push → client (${config.runs} runs, ${config.runs * config.clientsPerTask} clients)`,
        target: `< ${PIPELINE_AIMS.deliveryP99Ms} ms`,
        actual: delivery,
        unit: 'ms',
        met: valid(delivery) ? (delivery as number) < PIPELINE_AIMS.deliveryP99Ms : null,
      },
      {
        name: `${name}: database writes per 1,000 streamed tokens`,
        target: `≤ ${PIPELINE_AIMS.writesPer1kTokens}`,
        actual: writes,
        unit: 'writes per 1,000 tokens',
        met: valid(writes) ? (writes as number) <= PIPELINE_AIMS.writesPer1kTokens : null,
      },
      {
        name: `${name}: start-pipeline p99 (${config.runs} at once)`,
        target: `< ${PIPELINE_AIMS.startP99Ms} ms`,
        actual: start,
        unit: 'ms',
        met: valid(start) ? (start as number) < PIPELINE_AIMS.startP99Ms : null,
      },
    );
  }
  return aims;
}
