import type {
  AgentConfig,
  AgentType,
  ErrorDetails,
  FileChange,
  PhaseChangeData,
  PipelineEvent,
  ProviderId,
  ReviewResult,
} from '@/contracts/pipeline.js';
import { RUN_TRANSITIONS, type RunCursor, type RunTransition } from '@/contracts/run-lifecycle.js';
import type { Db } from '@/server/db/client.js';
import type { FeedbackEntry } from '@/server/db/schema.js';
import type { RunLocks } from '../coordination/run-locks.js';
import { taskStream } from '../events/bus.js';
import type { EventLog } from '../events/event-log.js';
import { RunEvents } from './run-events.js';
import type { SlotWrite } from './running-slots.js';
import { insertRun, type RunPatch, type RunRow, updateRun } from './runs.repo.js';

/** The run a transition applies to, and where its events go. */
/** A cancelled run; or, during shutdown, a running one about to be paused as interrupted. */
const STOPPED_FROM_OUTSIDE = ['cancelled', 'running'] as const;

export interface RunRef {
  runId: string;
  taskId: string;
  projectId: string;
}

/** What a run has produced, told to clients when it ends. */
export interface RunOutcome {
  fileChanges: FileChange[];
  review: ReviewResult | null;
}

type SubtaskAnnouncement = NonNullable<PhaseChangeData['subtask']>;

interface Announcements {
  /** Task-stream events sent after the run's summary, before its phase-change (an error). */
  before?: PipelineEvent[];
  subtask?: SubtaskAnnouncement;
  /** How the run ended (pass, fail): a `pipeline-complete` event after the task's move. */
  outcome?: { result: 'passed' | 'failed' } & RunOutcome;
}

/**
 * The only writer of a run's state. Each transition of `RUN_TRANSITIONS` is one conditional
 * UPDATE (`WHERE id = … AND status IN (from)`) that answers the run, or null when the run was
 * no longer in a state the transition applies to, followed by its events in a fixed order: the
 * run's summary (`run-update`), an error, the `phase-change`, the task's move, `pipeline-complete`.
 * The orchestrator decides whether a caller may ask for a transition; the driver asks for the
 * ones a run takes by itself.
 */
export class RunTransitions {
  readonly events: RunEvents;
  /** A transition's write with no slot to take: on the app's database handle. */
  private readonly plainWrite: SlotWrite = (write) => write(this.db);

  constructor(
    private readonly db: Db,
    private readonly log: EventLog,
    private readonly now: () => number,
    /** The runs' file locks; without them (tests of other parts) runs take none. */
    private readonly locks?: RunLocks,
  ) {
    this.events = new RunEvents(db, log, now);
  }

  /** Creates the run (running, planning) and moves its task to Spec. A second active run is refused by the database. */
  async start(
    ref: Omit<RunRef, 'runId'>,
    values: { provider: ProviderId; agentConfigs: Record<AgentType, AgentConfig>; cursor: RunCursor },
    slot: SlotWrite = this.plainWrite,
  ): Promise<RunRow> {
    const rule = RUN_TRANSITIONS.start;
    const row = await slot((db) =>
      insertRun(db, {
        taskId: ref.taskId,
        ...values,
        status: rule.to,
        phase: rule.phase,
      }),
    );
    // The task's stream learns its next id now, while nothing else is appended to it.
    await this.log.lastSeq(taskStream(ref.taskId));
    await this.announce('start', { ...ref, runId: row.id }, row, {});
    return row;
  }

  /**
   * Announces the phase the cursor points at (and the subtask). `patch` is written with it;
   * without a patch nothing is written (a later subtask of coding: the previous one saved the cursor).
   */
  async enterPhase(
    ref: RunRef,
    at: { cursor: RunCursor; iteration: number },
    patch: RunPatch | null,
    subtask?: SubtaskAnnouncement,
  ) {
    if (patch)
      return this.apply(
        'enterPhase',
        ref,
        { ...patch, cursor: at.cursor, iteration: at.iteration },
        { ...(subtask ? { subtask } : {}) },
      );
    await this.events.task(
      ref.taskId,
      ref.runId,
      this.phaseChange(
        ref.runId,
        { phase: at.cursor.phase, status: 'running', iteration: at.iteration },
        subtask,
      ),
    );
    return null;
  }

  /** Saves a step's results and the cursor while the run goes on. */
  progress(ref: RunRef, patch: RunPatch) {
    return this.apply('progress', ref, patch, {});
  }

  /** Stops the run until a person retries or cancels it; the error says why. */
  pause(ref: RunRef, details: ErrorDetails, patch: RunPatch = {}) {
    return this.apply(
      'pause',
      ref,
      { ...patch, errorDetails: details },
      { before: [this.errorEvent(ref, details)] },
    );
  }

  /** Ends the run as failed (an error that cannot be retried, or the last review failed); the task goes back to Backlog. */
  fail(ref: RunRef, outcome: RunOutcome, patch: RunPatch = {}, details?: ErrorDetails) {
    return this.apply('fail', ref, details ? { ...patch, errorDetails: details } : patch, {
      ...(details ? { before: [this.errorEvent(ref, details)] } : {}),
      outcome: { result: 'failed', ...outcome },
    });
  }

  /** Ends the run as passed: its task waits in Review for a person. */
  pass(ref: RunRef, outcome: RunOutcome, patch: RunPatch = {}) {
    return this.apply('pass', ref, patch, { outcome: { result: 'passed', ...outcome } });
  }

  /** Ends an active run at once; the task goes back to Backlog. */
  cancel(ref: RunRef) {
    return this.apply('cancel', ref, {}, {});
  }

  /**
   * What a run stopped from outside (cancel, shutdown) had spent since its last write: its totals,
   * and nothing else. No status changes and nothing is announced; a run that has meanwhile ended
   * otherwise, or is running again, is left alone.
   */
  keepSpend(ref: RunRef, usage: Pick<RunPatch, 'inputTokens' | 'outputTokens' | 'costUsd'>) {
    return updateRun(this.db, ref.runId, usage, STOPPED_FROM_OUTSIDE);
  }

  /** A paused run runs again at its cursor (retry). */
  resume(ref: RunRef, cursor: RunCursor, agentConfigs: Record<AgentType, AgentConfig>, slot?: SlotWrite) {
    return this.apply('resume', ref, { cursor, agentConfigs, errorDetails: null }, {}, slot);
  }

  /** A passed run goes back to coding with a person's feedback (request changes); the task to Building. */
  reopen(
    ref: RunRef,
    at: { iteration: number; cursor: RunCursor; feedback: FeedbackEntry[] },
    slot?: SlotWrite,
  ) {
    return this.apply('reopen', ref, { ...at, errorDetails: null }, {}, slot);
  }

  /** The run's branch was merged: the commits are recorded (a revert is undone) and the task is done. */
  approve(ref: RunRef, merge: { mergeCommit: string | null; mergedOnto: string | null }) {
    return this.apply('approve', ref, { ...merge, revertCommit: null }, {});
  }

  /** The approval was taken back by a revert commit on the default branch: the task waits in Review again. */
  revert(ref: RunRef, revertCommit: string | null) {
    return this.apply('revert', ref, { revertCommit }, {});
  }

  private async apply(
    name: RunTransition,
    ref: RunRef,
    patch: RunPatch,
    said: Announcements,
    slot: SlotWrite = this.plainWrite,
  ) {
    const rule = RUN_TRANSITIONS[name];
    const set: RunPatch = { ...patch, status: rule.to };
    if (rule.phase === 'cursor') {
      if (patch.cursor) set.phase = patch.cursor.phase;
    } else if (rule.phase !== 'unchanged') set.phase = rule.phase;
    if ('completes' in rule) set.completedAt = rule.completes ? new Date(this.now()) : null;
    const row = await slot((db) => updateRun(db, ref.runId, set, rule.from));
    if (row) await this.announce(name, ref, row, said);
    if (row && 'releasesLocks' in rule && this.locks) await this.locks.releaseAll(ref);
    if (row && 'recordsLocks' in rule && this.locks) await this.locks.recordHeld(ref.runId);
    return row;
  }

  private async announce(name: RunTransition, ref: RunRef, row: RunRow, said: Announcements) {
    const rule = RUN_TRANSITIONS[name];
    await this.events.runUpdate(ref.projectId, row);
    for (const event of said.before ?? []) await this.events.task(ref.taskId, ref.runId, event);
    if (rule.announces) {
      await this.events.task(ref.taskId, ref.runId, this.phaseChange(ref.runId, row, said.subtask));
    }
    if ('taskStatus' in rule)
      await this.events.moveTask(ref.projectId, ref.taskId, ref.runId, rule.taskStatus);
    if (said.outcome) {
      const { result, fileChanges, review } = said.outcome;
      await this.events.task(ref.taskId, ref.runId, {
        type: 'pipeline-complete',
        data: {
          runId: ref.runId,
          taskId: ref.taskId,
          result,
          fileChanges: { files: fileChanges },
          ...(review ? { reviewFindings: review } : {}),
          timestamp: this.now(),
        },
      });
    }
  }

  /** The one place a `phase-change` event is built. */
  private phaseChange(
    runId: string,
    run: Pick<PhaseChangeData, 'phase' | 'status' | 'iteration'>,
    subtask?: SubtaskAnnouncement,
  ): PipelineEvent {
    return {
      type: 'phase-change',
      data: {
        runId,
        phase: run.phase,
        status: run.status,
        iteration: run.iteration,
        ...(subtask ? { subtask } : {}),
        timestamp: this.now(),
      },
    };
  }

  private errorEvent(ref: RunRef, details: ErrorDetails): PipelineEvent {
    return { type: 'error', data: { ...details, runId: ref.runId } };
  }
}
