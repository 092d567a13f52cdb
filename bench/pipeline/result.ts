// What the pipeline part measures on one database (the JSON of bench/results/latest.json).
import type { LatencySummary } from '../lib/stats.js';

export type PipelineDbResult =
  | {
      status: 'ok';
      database: 'pglite' | 'postgres';
      postgresUrl?: string;
      serverStartMs: number;
      setup: { users: number; tasks: number; sseClients: number; setupMs: number };
      /** 1/5/15-minute load averages when the runs started and when they had ended. */
      loadAverage: { start: number[]; end: number[] };
      runs: {
        requested: number;
        /** start-pipeline answered 202. */
        started: number;
        startErrors: Record<string, number>;
        /** Final statuses from GET /api/pipeline/:taskId/status (e.g. passed, failed, paused, running). */
        statuses: Record<string, number>;
        /** Runs that had not ended when the time cap came. */
        unfinished: number;
        capped: boolean;
        /** First start-pipeline sent → last pipeline-complete received. */
        spanMs: number;
        agentCalls: number;
      };
      /** POST /api/tasks/:id/start-pipeline, all runs at once: request sent → answer read. */
      startLatencyMs: LatencySummary;
      orchestrator: {
        /** Per run: (completedAt − startedAt) − Σ calls[].durationMs. */
        ownMsPerRun: LatencySummary;
        /** Per run: completedAt − startedAt. */
        runWallMs: LatencySummary;
        /** Per run: Σ calls[].durationMs (streaming from the provider). */
        providerMsPerRun: LatencySummary;
        /** Σ own ÷ Σ wall. */
        ownShare: number;
      };
      /** Per run, seen from the bench: start-pipeline sent → first client received pipeline-complete. */
      endToEndMs: LatencySummary;
      tokens: { output: number; input: number };
      /** INSERT/UPDATE/DELETE and all statements between the metrics before and after the runs. */
      dbWrites: {
        writes: number;
        statements: number;
        writesPer1kTokens: number | null;
        statementsPer1kTokens: number | null;
        writesPerRun: number | null;
        /** Writes other than the event log's INSERTs (run rows, task moves), per run. */
        otherWritesPerRun: number | null;
      };
      eventLog: { persisted: number; inserts: number; eventsPerInsert: number | null };
      delivery: {
        /** Date.now() at receipt − data.timestamp, every event with a timestamp, every client. */
        latencyMs: LatencySummary;
        byType: Record<string, LatencySummary>;
        /** Events received, all clients together. */
        delivered: number;
        /** Distinct events on the task streams (the longest client's count, summed over tasks). */
        distinct: number;
        /** Delivered events per second of the span. */
        perSecond: number;
        /** Tasks whose clients did not all receive the same ids. */
        idMismatches: number;
        /** Stored events of a run (GET /api/pipeline/runs/:id/events) some client never received. */
        missing: number;
        /** Ids out of order or repeated within one client's stream. */
        outOfOrder: number;
        /** Clients whose stream failed or was closed by the server. */
        streamErrors: number;
        streamErrorKinds: Record<string, number>;
      };
      memory: {
        /** VmRSS of the server process before the runs (after the setup). */
        idleRssBytes: number | null;
        /** Highest VmRSS sampled every 100 ms during the runs. */
        peakRssBytes: number | null;
        /** VmRSS once the runs had ended and the event log was written. */
        afterRssBytes: number | null;
        samples: number;
        /** process.memoryUsage() of the server, from /api/metrics after the runs. */
        metricsRssBytes: number;
        metricsHeapUsedBytes: number;
      };
      /** CPU the server process used during the runs, % of one core (PGlite runs inside it). */
      serverCpuPercent: number | null;
      /**
       * The server's main thread (its event loop) during the runs, in % of the wall time: running on
       * a CPU, and runnable but waiting for one (other processes on the machine had it).
       */
      serverMainThread: { runPercent: number; runQueueWaitPercent: number } | null;
      /** CPU of the server's reaped children (git) during the runs, % of one core. */
      serverChildrenCpuPercent: number | null;
      /**
       * CPU of the simulator (the stand-in for a remote provider, which here shares the machine's
       * cores with the server) during the runs, % of one core.
       */
      simulatorCpuPercent: number | null;
      /** CPU this bench process (200 SSE readers) used during the runs, % of one core. */
      benchCpuPercent: number;
      /** This process's main thread: % of the wall time it waited for a CPU while runnable. */
      benchRunQueueWaitPercent: number | null;
      /** This process's event-loop delay during the runs: part of every delivery latency. */
      benchEventLoopDelayMs: { p50: number; p99: number; max: number };
      serverLog: { line: string; count: number }[];
    }
  | { status: 'skipped'; database: 'pglite' | 'postgres'; reason: string }
  | {
      status: 'error';
      database: 'pglite' | 'postgres';
      error: string;
      serverLog: { line: string; count: number }[];
    };
