// The pipeline part's figures, from what the server recorded and what the clients received.
import { type LatencySummary, round, summarize } from '../lib/stats.js';
import type { ClientState, TaskState } from './clients.js';
import type { Metrics, RunStatus } from './runs.js';
import { bump, mapLimit } from './util.js';

/** Statuses, agent calls, tokens and the orchestrator's share of each run's wall time. */
export function summarizeRuns(details: readonly RunStatus[]) {
  const statuses: Record<string, number> = {};
  const ownMs: number[] = [];
  const runWallMs: number[] = [];
  const providerMs: number[] = [];
  let agentCalls = 0;
  let outputTokens = 0;
  let inputTokens = 0;
  for (const detail of details) {
    bump(statuses, detail.status);
    if (!('runId' in detail)) continue;
    outputTokens += detail.usage.outputTokens;
    inputTokens += detail.usage.inputTokens;
    agentCalls += detail.calls.length;
    if (!detail.completedAt) continue;
    const wall = Date.parse(detail.completedAt) - Date.parse(detail.startedAt);
    const streaming = detail.calls.reduce((sum, call) => sum + call.durationMs, 0);
    runWallMs.push(wall);
    providerMs.push(streaming);
    ownMs.push(wall - streaming);
  }
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  return {
    statuses,
    agentCalls,
    tokens: { output: outputTokens, input: inputTokens },
    orchestrator: {
      ownMsPerRun: summarize(ownMs),
      runWallMs: summarize(runWallMs),
      providerMsPerRun: summarize(providerMs),
      ownShare: round(sum(ownMs) / Math.max(1, sum(runWallMs)), 3),
    },
  };
}

/** Per run: start-pipeline sent → the first client that read pipeline-complete. */
export function endToEndMs(started: readonly TaskState[]): LatencySummary {
  const values = started
    .map((task) => {
      const first = Math.min(...task.clients.map((client) => client.completeAt ?? Number.POSITIVE_INFINITY));
      return Number.isFinite(first) ? first - task.startSentAt : null;
    })
    .filter((value): value is number => value !== null);
  return summarize(values);
}

/** First start sent → the last end any client or status poll saw. */
export function spanMs(
  started: readonly TaskState[],
  clients: readonly ClientState[],
  runsStartedAt: number,
) {
  const lastComplete = Math.max(
    runsStartedAt,
    ...clients.map((client) => client.completeAt ?? 0),
    ...started.map((task) => task.endedAt ?? 0),
  );
  return lastComplete - runsStartedAt;
}

/** The clients of a task agree, their ids are in order, and nothing stored is missing. */
export async function checkDelivery(tasks: readonly TaskState[], details: readonly RunStatus[]) {
  let idMismatches = 0;
  let outOfOrder = 0;
  let missing = 0;
  let distinct = 0;
  await mapLimit(tasks, 5, async (task) => {
    const reference = task.clients.reduce(
      (longest, client) => (client.ids.length > longest.length ? client.ids : longest),
      [] as number[],
    );
    distinct += reference.length;
    const key = reference.join(',');
    if (task.clients.some((client) => client.ids.join(',') !== key)) idMismatches += 1;
    for (const client of task.clients) {
      for (let index = 1; index < client.ids.length; index++) {
        if ((client.ids[index] ?? 0) <= (client.ids[index - 1] ?? 0)) outOfOrder += 1;
      }
    }
    const detail = details[tasks.indexOf(task)];
    if (!detail || !('runId' in detail)) return;
    const stored = await storedEventIds(task, detail.runId);
    for (const client of task.clients) {
      const seen = new Set(client.ids);
      for (const id of stored) if (!seen.has(id)) missing += 1;
    }
  });
  return { idMismatches, outOfOrder, missing, distinct };
}

/** Every stored event id of a run, page by page. */
async function storedEventIds(task: TaskState, runId: string): Promise<Set<number>> {
  const stored = new Set<number>();
  for (let afterSeq = 0; ; ) {
    const page = await task.owner.json<{ events: { id: number }[] }>(
      'GET',
      `/api/pipeline/runs/${runId}/events?after=${afterSeq}`,
      undefined,
      200,
    );
    for (const event of page.events) stored.add(event.id);
    const last = page.events.at(-1)?.id;
    if (page.events.length < 10_000 || last === undefined) return stored;
    afterSeq = last;
  }
}

/** Database writes and event-log batching between two metrics reads, per token and per run. */
export function databaseFigures(before: Metrics, after: Metrics, outputTokens: number, startedRuns: number) {
  const writes = after.database.writes - before.database.writes;
  const statements = after.database.statements - before.database.statements;
  const inserts = after.events.writes - before.events.writes;
  const persisted = after.events.persisted - before.events.persisted;
  const per1k = (count: number) => (outputTokens > 0 ? round((count / outputTokens) * 1000, 2) : null);
  return {
    dbWrites: {
      writes,
      statements,
      writesPer1kTokens: per1k(writes),
      statementsPer1kTokens: per1k(statements),
      writesPerRun: startedRuns > 0 ? round(writes / startedRuns, 1) : null,
      otherWritesPerRun: startedRuns > 0 ? round((writes - inserts) / startedRuns, 1) : null,
    },
    eventLog: { persisted, inserts, eventsPerInsert: inserts > 0 ? round(persisted / inserts, 1) : null },
  };
}
