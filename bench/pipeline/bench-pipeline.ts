// The pipeline part of `npm run bench`: concurrent runs against the simulator (in its own process)
// at full speed, watched by SSE clients. See bench/README.md ("Pipeline").
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { firstLine, processRssBytes, summarizeLog } from '../lib/common.js';
import { ms } from '../lib/format.js';
import { BenchClient } from '../lib/http.js';
import { redactUrl } from '../lib/postgres.js';
import { freePort, makeTempDir, removeTempDir } from '../lib/processes.js';
import { round, summarize } from '../lib/stats.js';
import { checkDelivery, databaseFigures, endToEndMs, spanMs, summarizeRuns } from './analysis.js';
import { connectAll, createUsersAndTasks, type DeliveryLog, type TaskState, watchTasks } from './clients.js';
import type { PipelineConfig } from './config.js';
import {
  METRICS_TOKEN,
  type ServerOptions,
  spawnServer,
  startSimulator,
  waitForServer,
} from './processes.js';
import type { PipelineDbResult } from './result.js';
import { readMetrics, readStatus, settledMetrics, startAll, waitForEnds } from './runs.js';
import { cpuMeter, sampleRss } from './usage.js';
import { bump, mapLimit } from './util.js';

/** One database: a fresh server, N users × their tasks, SSE clients, then every run at once. */
export async function benchPipeline(
  kind: 'pglite' | 'postgres',
  databaseUrl: string | undefined,
  config: PipelineConfig,
): Promise<PipelineDbResult> {
  const dataDir = await makeTempDir(`autocoder-bench-pipeline-${kind}-`);
  const port = await freePort();
  const { simulator, simulatorPort } = await startSimulator();
  const options: ServerOptions = { kind, databaseUrl, port, dataDir, simulatorPort, config };
  const { server, since } = spawnServer(options);
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(64, config.runs), timeout: 4_000 });
  const tasks: TaskState[] = [];
  let rss: ReturnType<typeof sampleRss> | undefined;
  const cpu = cpuMeter(server.pid, simulator.pid);
  try {
    const health = await waitForServer(options, server, since);

    // --- setup: users, their tasks, the SSE clients
    const setupStart = performance.now();
    const { userCount, created } = await createUsersAndTasks(agent, port, config.runs);
    const log: DeliveryLog = { latencies: [], byType: new Map(), streamErrorKinds: {} };
    tasks.push(...watchTasks(created, port, config.clientsPerTask, log));
    const allClients = tasks.flatMap((task) => task.clients);
    await connectAll(allClients, config);
    const setupMs = performance.now() - setupStart;
    console.log(
      `  setup: ${userCount} users, ${tasks.length} tasks, ${allClients.length} SSE clients connected (${ms(
        setupMs,
      )} ms)`,
    );

    // --- the runs: every start at once, then wait for every end
    const metricsClient = new BenchClient(agent, port);
    metricsClient.authorization = `Bearer ${METRICS_TOKEN}`;
    const before = await readMetrics(metricsClient);
    rss = sampleRss(server.pid);
    cpu.start();
    const runsStartedAt = Date.now();
    const { startLatencies, startErrors, started } = await startAll(tasks, config);
    const capped = await waitForEnds(started, runsStartedAt, config.timeCapMs);
    const usage = cpu.stop();
    const after = await settledMetrics(metricsClient);
    const memory = rss.stop();
    rss = undefined;
    const afterRssBytes = processRssBytes(server.pid);
    if (capped) {
      const ended = started.filter((task) => task.endedAt !== null).length;
      console.log(`  time cap reached: ${ended} of ${started.length} runs had ended`);
    }

    // --- what the server recorded and what the clients received
    const details = await mapLimit(tasks, 10, readStatus);
    const runs = summarizeRuns(details);
    const span = spanMs(started, allClients, runsStartedAt);
    const checks = await checkDelivery(tasks, details);
    for (const client of allClients) {
      if (client.sse.error) bump(log.streamErrorKinds, firstLine(client.sse.error));
    }
    const delivered = allClients.reduce((sum, client) => sum + client.sse.events, 0);

    return {
      status: 'ok',
      database: kind,
      ...(databaseUrl ? { postgresUrl: redactUrl(databaseUrl) } : {}),
      serverStartMs: round(health.ms, 0),
      setup: {
        users: userCount,
        tasks: tasks.length,
        sseClients: allClients.length,
        setupMs: round(setupMs, 0),
      },
      loadAverage: usage.loadAverage,
      runs: {
        requested: tasks.length,
        started: started.length,
        startErrors,
        statuses: runs.statuses,
        unfinished: started.filter((task) => task.endedAt === null).length,
        capped,
        spanMs: round(span, 0),
        agentCalls: runs.agentCalls,
      },
      startLatencyMs: summarize(startLatencies),
      orchestrator: runs.orchestrator,
      endToEndMs: endToEndMs(started),
      tokens: runs.tokens,
      ...databaseFigures(before, after, runs.tokens.output, started.length),
      delivery: {
        latencyMs: summarize(log.latencies),
        byType: Object.fromEntries([...log.byType].map(([type, values]) => [type, summarize(values)])),
        delivered,
        distinct: checks.distinct,
        perSecond: span > 0 ? round((delivered / span) * 1000, 0) : 0,
        idMismatches: checks.idMismatches,
        missing: checks.missing,
        outOfOrder: checks.outOfOrder,
        streamErrors: allClients.filter((client) => client.sse.error !== null).length,
        streamErrorKinds: log.streamErrorKinds,
      },
      memory: {
        idleRssBytes: memory.idleRssBytes,
        peakRssBytes: memory.peakRssBytes,
        afterRssBytes,
        samples: memory.samples,
        metricsRssBytes: after.process.rssBytes,
        metricsHeapUsedBytes: after.process.heapUsedBytes,
      },
      serverCpuPercent: usage.serverCpuPercent,
      serverMainThread: usage.serverMainThread,
      serverChildrenCpuPercent: usage.serverChildrenCpuPercent,
      simulatorCpuPercent: usage.simulatorCpuPercent,
      benchCpuPercent: usage.benchCpuPercent,
      benchRunQueueWaitPercent: usage.benchRunQueueWaitPercent,
      benchEventLoopDelayMs: usage.benchEventLoopDelayMs,
      serverLog: summarizeLog(server.output()),
    };
  } catch (error) {
    console.log(`  failed: ${firstLine(error)}`);
    return {
      status: 'error',
      database: kind,
      error: error instanceof Error ? error.message.slice(0, 2_000) : String(error),
      serverLog: summarizeLog(server.output()),
    };
  } finally {
    rss?.stop();
    cpu.dispose();
    for (const task of tasks) for (const client of task.clients) client.sse?.close();
    agent.destroy();
    await server.stop();
    await simulator.stop();
    await removeTempDir(dataDir);
  }
}
