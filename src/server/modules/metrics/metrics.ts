import { createHash, timingSafeEqual } from 'node:crypto';
import type { Registry } from 'prom-client';
import type { DatabaseKind, QueryStats } from '@/server/db/client.js';
import type { EventLogStats } from '../events/event-log.js';
import type { SseHubStats } from '../events/sse-hub.js';

/** What the metrics read, from the app's parts; `AppDeps` provides it. */
export interface MetricsSource {
  dbKind: DatabaseKind;
  dbStats: QueryStats;
  events: { readonly stats: EventLogStats };
  sseHub: { readonly stats: SseHubStats };
  orchestrator: { readonly activeCount: number };
  version: string;
}

/** The JSON form of GET /api/metrics (the benchmarks read it). */
export function metricsSnapshot(deps: MetricsSource) {
  const memory = process.memoryUsage();
  return {
    database: { kind: deps.dbKind, ...deps.dbStats },
    events: { ...deps.events.stats },
    sse: { ...deps.sseHub.stats },
    runs: { active: deps.orchestrator.activeCount },
    process: {
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      uptimeSeconds: Math.round(process.uptime()),
    },
  };
}

type PromClient = typeof import('prom-client');

/**
 * The Prometheus registry of one app: the app's own counters, read from its parts at scrape
 * time, and Node's default process metrics (memory, CPU, event-loop lag). prom-client loads on
 * the first scrape: a server without a metrics token never pays for it.
 */
export async function createMetricsRegistry(deps: MetricsSource): Promise<Registry> {
  const prom: PromClient = await import('prom-client');
  const registry = new prom.Registry();
  /** A counter whose value is read from a running total at scrape time. */
  const totalOf = (name: string, help: string, read: () => number) =>
    new prom.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  const gaugeOf = (name: string, help: string, read: () => number) =>
    new prom.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  new prom.Gauge({
    name: 'autocoder_info',
    help: 'Always 1; labels name the version and the database kind.',
    labelNames: ['version', 'database'],
    registers: [registry],
  }).set({ version: deps.version, database: deps.dbKind }, 1);
  totalOf('autocoder_db_statements_total', 'Statements sent to the database.', () => deps.dbStats.statements);
  totalOf('autocoder_db_writes_total', 'INSERT, UPDATE and DELETE statements.', () => deps.dbStats.writes);
  totalOf(
    'autocoder_event_batches_total',
    'Batched writes of the event log.',
    () => deps.events.stats.writes,
  );
  totalOf(
    'autocoder_events_persisted_total',
    'Events written by the event log.',
    () => deps.events.stats.persisted,
  );
  gaugeOf(
    'autocoder_runs_active',
    'Pipeline runs this process is driving.',
    () => deps.orchestrator.activeCount,
  );
  gaugeOf('autocoder_sse_streams_open', 'Open SSE streams.', () => deps.sseHub.stats.open);
  totalOf(
    'autocoder_sse_streams_dropped_slow_total',
    'SSE streams closed because their client fell more than the queue bound behind.',
    () => deps.sseHub.stats.droppedSlow,
  );
  totalOf(
    'autocoder_sse_streams_closed_session_ended_total',
    'SSE streams closed because their session ended (logout, expiry).',
    () => deps.sseHub.stats.closedSessionEnded,
  );
  totalOf(
    'autocoder_sse_streams_closed_over_cap_total',
    'SSE streams closed because their user opened more than the per-user cap.',
    () => deps.sseHub.stats.closedOverCap,
  );
  prom.collectDefaultMetrics({ register: registry });
  return registry;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares a presented bearer token with the configured one in constant time (whatever their lengths). */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}
