// The engines part's cancelled step: an external engine caught in the middle of its slow command
// (the simulator's `engine-sleep`), cancelled as a person would, and the time until its processes
// are gone from /proc.
import { setTimeout as sleep } from 'node:timers/promises';
import { type CancelRecord, type ExternalBenchEngine, stampOf } from './engines-analysis.js';
import { type Ground, newTask, runStatus, startRun, TASK, watchTask } from './engines-client.js';
import { alive, cmdlineOf, pidsRunning, treeOf } from './engines-procs.js';

/** The slow command, or the shell running it (`echo …; sleep 30`). */
const SLEEPING = /(^|\s)sleep \d+(\s|$)/;
/** How long the engine may take to reach its slow command. */
const REACH_MS = 90_000;
/** How long the processes are watched after Cancel. */
const WATCH_MS = 20_000;

export async function cancelMidStep(
  ground: Ground,
  engine: ExternalBenchEngine,
  sleepSeconds: number,
): Promise<CancelRecord> {
  const token = ground.binaries[engine];
  if (!token) return { engine, outcome: 'failed', reason: 'no binary' };
  const description = `${TASK.description} [simulate: engine-sleep=${sleepSeconds}]`;
  const taskId = await newTask(ground, engine, description, `Cancel mid-step ${engine}`);
  const watched = watchTask(ground, taskId);
  try {
    await watched.sse.opened;
    const started = await startRun(ground, taskId);
    if (started.status !== 202) return { engine, outcome: 'failed', reason: `start ${started.status}` };
    // Until the slow command runs inside the engine's sandbox.
    const deadline = Date.now() + REACH_MS;
    let tree: number[] = [];
    for (;;) {
      const engines = pidsRunning(token);
      if (engines.length > 0) {
        tree = treeOf(engines);
        if (tree.some((pid) => SLEEPING.test(cmdlineOf(pid)))) break;
      }
      const ended = await Promise.race([watched.ended, sleep(50, null)]);
      if (ended !== null || Date.now() > deadline) {
        return {
          engine,
          outcome: 'failed',
          reason: `its slow command was never seen running (${ended ?? 'time out'})`,
        };
      }
    }
    const stepStart = watched.events.findLast((event) => event.type === 'phase-change');
    const treeAtCancel = tree.map((pid) => cmdlineOf(pid).slice(0, 100)).filter(Boolean);
    const sentAt = Date.now();
    let answeredAt = 0;
    const request = ground.client.request('POST', `/api/pipeline/${taskId}/cancel`).then((res) => {
      answeredAt = Date.now();
      return res.status;
    });
    let noEngineAt: number | null = null;
    let noSandboxAt: number | null = null;
    while (Date.now() - sentAt < WATCH_MS && (noEngineAt === null || noSandboxAt === null)) {
      const now = Date.now();
      if (noEngineAt === null && pidsRunning(token).length === 0) noEngineAt = now;
      if (noSandboxAt === null && !tree.some(alive)) noSandboxAt = now;
      await sleep(5);
    }
    const status = await request;
    await Promise.race([watched.ended, sleep(5_000)]);
    const cancelled = watched.events.find(
      (event) => event.type === 'phase-change' && event.data.status === 'cancelled',
    );
    return {
      engine,
      outcome: status === 200 ? 'measured' : 'failed',
      ...(status === 200 ? {} : { reason: `cancel answered ${status}` }),
      ...(stepStart ? { cancelledAfterMs: sentAt - stampOf(stepStart) } : {}),
      requestMs: answeredAt - sentAt,
      toCancelledEventMs: cancelled ? cancelled.receivedAt - sentAt : null,
      toNoEngineProcessMs: noEngineAt === null ? null : noEngineAt - sentAt,
      toNoSandboxProcessMs: noSandboxAt === null ? null : noSandboxAt - sentAt,
      treeAtCancel,
      runStatus: await runStatus(ground, taskId),
    };
  } finally {
    watched.sse.close();
  }
}
