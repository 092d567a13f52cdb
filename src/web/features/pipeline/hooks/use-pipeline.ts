import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { errorMessage, isApiError } from '@/web/lib/api-client';
import { runRequestOf, useRunSettingsStore } from '@/web/lib/run-settings';
import { approvePipeline } from '../api/approve-pipeline';
import { cancelPipeline } from '../api/cancel-pipeline';
import { reviewCommentsKey } from '../api/get-review-comments';
import { requestChanges } from '../api/request-changes';
import { retryPipeline } from '../api/retry-pipeline';
import { revertPipeline } from '../api/revert-pipeline';
import { startPipeline } from '../api/start-pipeline';
import { selectRun, useAgentLogs, usePipelineRun, usePipelineStore } from '../stores/pipeline-store';
import type { PipelineRunState } from '../stores/run-state';

export type PipelineAction = 'start' | 'retry' | 'cancel' | 'approve' | 'requestChanges' | 'revert';

export interface PipelineActionError {
  action: PipelineAction;
  message: string;
  /** The API's error code (INVALID_API_KEY, PIPELINE_ACTIVE, MERGE_CONFLICT…), null for network errors. */
  code: string | null;
  /** The files git could not merge (MERGE_CONFLICT on approve or revert); empty otherwise. */
  files: string[];
}

/** Retry: the run resumes where it stopped. */
const retrying = (run: PipelineRunState): PipelineRunState => ({
  ...run,
  status: 'running',
  phase: run.errorDetails?.failedPhase ?? run.lastActivePhase ?? run.phase,
  errorDetails: null,
});

const cancelled = (run: PipelineRunState): PipelineRunState => ({
  ...run,
  status: 'cancelled',
  phase: 'cancelled',
  completedAt: Date.now(),
  retryAt: null,
});

/** Request changes: the coder starts a new round at the next iteration. */
const newRound = (run: PipelineRunState): PipelineRunState => ({
  ...run,
  status: 'running',
  phase: 'coding',
  iteration: run.iteration + 1,
  roundStart: run.iteration + 1,
  fixedInRound: false,
  lastActivePhase: 'coding',
  subtask: null,
  errorDetails: null,
  completedAt: null,
});

const idle: Record<PipelineAction, boolean> = {
  start: false,
  retry: false,
  cancel: false,
  approve: false,
  requestChanges: false,
  revert: false,
};

const store = () => usePipelineStore.getState();
const currentRequest = () => runRequestOf(useRunSettingsStore.getState().settings);

/**
 * A task's run and the actions on it, each with its own loading state. Actions
 * resolve to whether the server accepted them; a refusal lands in `actionError`. Cancel, retry and
 * request-changes show at once, until the server's next event on the run; a refusal takes them back.
 */
export function usePipeline(taskId: string) {
  const pipelineRun = usePipelineRun(taskId);
  const agentLogs = useAgentLogs(taskId);
  const [pending, setPending] = useState(idle);
  const [actionError, setActionError] = useState<PipelineActionError | null>(null);
  const queryClient = useQueryClient();

  const perform = useCallback(
    async <T>(
      action: PipelineAction,
      call: () => Promise<T>,
      optimistic?: (run: PipelineRunState) => PipelineRunState,
    ): Promise<T | null> => {
      setPending((current) => ({ ...current, [action]: true }));
      setActionError(null);
      const proposed = optimistic ? store().propose(taskId, optimistic) : null;
      try {
        return await call();
      } catch (error) {
        if (proposed) store().withdraw(taskId, proposed);
        setActionError({
          action,
          message: errorMessage(error),
          code: isApiError(error) ? error.code : null,
          files: isApiError(error) ? error.conflictFiles : [],
        });
        return null;
      } finally {
        setPending((current) => ({ ...current, [action]: false }));
      }
    },
    [taskId],
  );

  const start = useCallback(async () => {
    const request = currentRequest();
    const result = await perform('start', () => startPipeline(taskId, request));
    if (result) store().startPipeline(taskId, result.runId, request.options.provider);
    return result !== null;
  }, [taskId, perform]);

  const retry = useCallback(async () => {
    const result = await perform('retry', () => retryPipeline(taskId, currentRequest()), retrying);
    if (result && result.delayMs > 0) store().setRetryAt(taskId, Date.now() + result.delayMs);
    return result !== null;
  }, [taskId, perform]);

  const cancel = useCallback(
    async () => (await perform('cancel', () => cancelPipeline(taskId), cancelled)) !== null,
    [taskId, perform],
  );

  const approve = useCallback(async () => {
    const result = await perform('approve', () => approvePipeline(taskId));
    // The run's run-update says so too; this shows it while the task's stream is idle.
    if (result && selectRun(store(), taskId)?.mergeCommit !== result.mergeCommit)
      store().propose(taskId, (run) => ({ ...run, mergeCommit: result.mergeCommit }));
    return result !== null;
  }, [taskId, perform]);

  const sendChanges = useCallback(
    async (feedback: string) => {
      const result = await perform(
        'requestChanges',
        () => requestChanges(taskId, feedback, currentRequest()),
        newRound,
      );
      // The open comments went with it: they are addressed now.
      if (result) void queryClient.invalidateQueries({ queryKey: reviewCommentsKey(result.runId) });
      return result !== null;
    },
    [taskId, perform, queryClient],
  );

  const revert = useCallback(async () => {
    const result = await perform('revert', () => revertPipeline(taskId));
    // As for an approval: the run-update says so too; this shows "Reverted by" at once.
    if (result && selectRun(store(), taskId)?.revertCommit !== result.revertCommit)
      store().propose(taskId, (run) => ({ ...run, revertCommit: result.revertCommit }));
    return result !== null;
  }, [taskId, perform]);

  const status = pipelineRun?.status;
  return {
    pipelineRun,
    agentLogs,
    isRunning: status === 'running',
    isPaused: status === 'paused',
    isCompleted: status === 'passed' || status === 'failed' || status === 'cancelled',
    startPipeline: start,
    retryPipeline: retry,
    cancelPipeline: cancel,
    approvePipeline: approve,
    requestChanges: sendChanges,
    revertApproval: revert,
    isStarting: pending.start,
    isRetrying: pending.retry,
    isCancelling: pending.cancel,
    isApproving: pending.approve,
    isRequestingChanges: pending.requestChanges,
    isReverting: pending.revert,
    actionError,
    clearActionError: useCallback(() => setActionError(null), []),
  };
}

export type UsePipelineReturn = ReturnType<typeof usePipeline>;
