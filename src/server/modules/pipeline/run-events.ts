import type { AgentType, PipelineEvent, RunStepData } from '@/contracts/pipeline.js';
import type { TaskStatus } from '@/contracts/tasks.js';
import type { Db } from '@/server/db/client.js';
import { projectStream, taskStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { toRunSummary } from './run-view.js';
import { type RunRow, setTaskFields } from './runs.repo.js';

/**
 * The events a run sends, on the task's stream and the project's (the board). Only
 * `run-transitions.ts` changes a run; this only tells about it.
 */
export class RunEvents {
  constructor(
    private readonly db: Db,
    private readonly log: EventLog,
    private readonly now: () => number,
  ) {}

  /** An event on the task's stream. */
  task(taskId: string, runId: string | null, event: PipelineEvent) {
    return this.log.append(taskStream(taskId), event, runId);
  }

  /** An agent's chunk: coalesced with its neighbours for a few ms, then published and batched. */
  chunk(taskId: string, runId: string, agent: AgentType, chunk: string) {
    this.log.appendChunk(taskStream(taskId), runId, { runId, agent, chunk, timestamp: this.now() });
  }

  /**
   * The run's summary as it now stands, on the task's stream, where a client reduces it in order
   * with the run's other events, and, the same event, on the project's stream (the board's cards).
   */
  async runUpdate(projectId: string, row: RunRow) {
    const event: PipelineEvent = {
      type: 'run-update',
      data: { run: toRunSummary(row), timestamp: this.now() },
    };
    await this.task(row.taskId, row.id, event);
    await this.log.append(projectStream(projectId), event);
  }

  /** A run's setup or check began or ended: on the project's stream, for the card. */
  runStep(projectId: string, data: RunStepData) {
    return this.log.append(projectStream(projectId), { type: 'run-step', data });
  }

  /**
   * Tells the card a step runs while `body` runs, then how it ended (a throw: not passed). A
   * failure to tell never fails the step.
   */
  async step<T extends { passed: boolean } | undefined>(
    projectId: string,
    taskId: string,
    runId: string,
    step: RunStepData['step'],
    body: () => Promise<T>,
  ): Promise<T> {
    const tell = (running: boolean, passed?: boolean) =>
      this.runStep(projectId, {
        runId,
        taskId,
        step,
        running,
        ...(passed === undefined ? {} : { passed }),
        timestamp: this.now(),
      }).catch(() => undefined);
    await tell(true);
    let passed = false;
    try {
      const result = await body();
      passed = result?.passed ?? true;
      return result;
    } finally {
      await tell(false, passed);
    }
  }

  /** Moves a task as the pipeline does (not subject to the manual rules) and tells both streams. */
  async moveTask(projectId: string, taskId: string, runId: string | null, status: TaskStatus) {
    await setTaskFields(this.db, taskId, { status });
    const event: PipelineEvent = {
      type: 'task-status',
      data: { taskId, newStatus: status, timestamp: this.now() },
    };
    await this.task(taskId, runId, event);
    await this.log.append(projectStream(projectId), event);
  }
}
