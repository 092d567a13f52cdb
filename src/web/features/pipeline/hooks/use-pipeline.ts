import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { errorMessage, isApiError } from '@/web/lib/api-client';
import { runRequestOf, useRunSettingsStore } from '@/web/lib/run-settings';
import { approvePipeline } from '../api/approve-pipeline';
import { cancelPipeline } from '../api/cancel-pipeline';
import { pipelineStatusKey } from '../api/get-pipeline-status';
import { requestChanges } from '../api/request-changes';
import { retryPipeline } from '../api/retry-pipeline';
import { startPipeline } from '../api/start-pipeline';
import { useAgentLogs, usePipelineRun, usePipelineStore } from '../stores/pipeline-store';

export type PipelineAction = 'start' | 'retry' | 'cancel' | 'approve' | 'requestChanges';

export interface PipelineActionError {
  action: PipelineAction;
  message: string;
  /** The API's error code (INVALID_API_KEY, PIPELINE_ACTIVE, MERGE_CONFLICT…), null for network errors. */
  code: string | null;
}

const idle: Record<PipelineAction, boolean> = {
  start: false,
  retry: false,
  cancel: false,
  approve: false,
  requestChanges: false,
};

const store = () => usePipelineStore.getState();
const currentRequest = () => runRequestOf(useRunSettingsStore.getState().settings);

/**
 * A task's run and the actions on it, each with its own loading state. Actions
 * resolve to whether the server accepted them; a refusal lands in `actionError`. Cancel, retry and
 * request-changes show at once and are undone if the server refuses.
 */
export function usePipeline(taskId: string) {
  const pipelineRun = usePipelineRun(taskId);
  const agentLogs = useAgentLogs(taskId);
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(idle);
  const [actionError, setActionError] = useState<PipelineActionError | null>(null);

  const perform = useCallback(
    async <T>(action: PipelineAction, call: () => Promise<T>, optimistic?: () => void): Promise<T | null> => {
      setPending((current) => ({ ...current, [action]: true }));
      setActionError(null);
      const saved = store().runs[taskId] ?? null;
      const seen = store().lastEventIds[taskId];
      optimistic?.();
      try {
        return await call();
      } catch (error) {
        // Undo the optimistic change, unless events have said what really happened since.
        if (optimistic && store().lastEventIds[taskId] === seen) store().restoreRun(taskId, saved);
        setActionError({ action, message: errorMessage(error), code: isApiError(error) ? error.code : null });
        return null;
      } finally {
        setPending((current) => ({ ...current, [action]: false }));
        void queryClient.invalidateQueries({ queryKey: pipelineStatusKey(taskId) });
      }
    },
    [taskId, queryClient],
  );

  const start = useCallback(async () => {
    const request = currentRequest();
    const result = await perform('start', () => startPipeline(taskId, request));
    if (result) store().startPipeline(taskId, result.runId, request.options.provider);
    return result !== null;
  }, [taskId, perform]);

  const retry = useCallback(async () => {
    const result = await perform(
      'retry',
      () => retryPipeline(taskId, currentRequest()),
      () => store().retryPipeline(taskId),
    );
    if (result) store().retryPipeline(taskId, result.delayMs);
    return result !== null;
  }, [taskId, perform]);

  const cancel = useCallback(
    async () =>
      (await perform(
        'cancel',
        () => cancelPipeline(taskId),
        () => store().cancelPipeline(taskId),
      )) !== null,
    [taskId, perform],
  );

  const approve = useCallback(async () => {
    const result = await perform('approve', () => approvePipeline(taskId));
    if (result) store().markApproved(taskId, result.mergeCommit);
    return result !== null;
  }, [taskId, perform]);

  const sendChanges = useCallback(
    async (feedback: string) => {
      const run = store().runs[taskId];
      const result = await perform(
        'requestChanges',
        () => requestChanges(taskId, feedback, currentRequest()),
        run
          ? () => store().updatePhase(taskId, 'coding', 'running', run.iteration + 1, { runId: run.runId })
          : undefined,
      );
      return result !== null;
    },
    [taskId, perform],
  );

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
    isStarting: pending.start,
    isRetrying: pending.retry,
    isCancelling: pending.cancel,
    isApproving: pending.approve,
    isRequestingChanges: pending.requestChanges,
    actionError,
    clearActionError: useCallback(() => setActionError(null), []),
  };
}

export type UsePipelineReturn = ReturnType<typeof usePipeline>;
