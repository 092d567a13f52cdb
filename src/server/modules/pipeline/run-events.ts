import type { PipelineEvent } from '@/contracts/pipeline.js';
import type { TaskStatus } from '@/contracts/tasks.js';
import type { Db } from '@/server/db/client.js';
import { projectStream, taskStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { toRunSummary } from './run-view.js';
import { type RunPatch, type RunRow, setTaskFields, updateRun } from './runs.repo.js';

/** The side effects every part of the pipeline shares: run updates, task moves, and their events. */
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
  chunk(taskId: string, runId: string, agent: 'planner' | 'coder' | 'reviewer', chunk: string) {
    this.log.appendChunk(taskStream(taskId), runId, { runId, agent, chunk, timestamp: this.now() });
  }

  /** Updates the run (optionally only while it is in one of `onlyIf`) and tells the board. */
  async updateRun(
    projectId: string,
    runId: string,
    patch: RunPatch,
    onlyIf?: readonly string[],
  ): Promise<RunRow | null> {
    const row = await updateRun(this.db, runId, patch, onlyIf);
    if (row) await this.runUpdate(projectId, row);
    return row;
  }

  /** The run's summary, to the board (project stream) and to the task's own stream, where it is the run's state. */
  async runUpdate(projectId: string, row: RunRow) {
    const event: PipelineEvent = {
      type: 'run-update',
      data: { run: toRunSummary(row), timestamp: this.now() },
    };
    await this.task(row.taskId, row.id, event);
    await this.log.append(projectStream(projectId), event);
  }

  /** Moves a task as the pipeline does (not subject to the manual rules) and tells both streams. */
  async moveTask(projectId: string, taskId: string, runId: string | null, status: TaskStatus, extra = {}) {
    await setTaskFields(this.db, taskId, { status, ...extra });
    const event: PipelineEvent = {
      type: 'task-status',
      data: { taskId, newStatus: status, timestamp: this.now() },
    };
    await this.task(taskId, runId, event);
    await this.log.append(projectStream(projectId), event);
  }
}
