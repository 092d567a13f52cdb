import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { PipelineRunDetail } from '@/contracts/pipeline';
import { apiRequest } from '@/web/lib/api-client';
import { usePipelineStore } from '../stores/pipeline-store';

export type PipelineStatusResponse = (PipelineRunDetail & { runId: string }) | { status: 'none' };

export const pipelineStatusKey = (taskId: string) => ['pipeline', 'status', taskId] as const;

export function getPipelineStatus(taskId: string, signal?: AbortSignal): Promise<PipelineStatusResponse> {
  return apiRequest<PipelineStatusResponse>(`/api/pipeline/${encodeURIComponent(taskId)}/status`, { signal });
}

/**
 * The task's latest run as the server has it (subtasks, files, findings, branch), merged into the
 * pipeline store, where the task's events keep it current.
 */
export function usePipelineStatus(taskId: string) {
  const query = useQuery({
    queryKey: pipelineStatusKey(taskId),
    queryFn: ({ signal }) => getPipelineStatus(taskId, signal),
    staleTime: 0,
  });
  const data = query.data;
  useEffect(() => {
    if (data && 'runId' in data) usePipelineStore.getState().hydrateRun(taskId, data);
  }, [taskId, data]);

  // Events carry the phase but not what a phase produced (subtasks, files, commits): fetch it then.
  const { refetch } = query;
  const moment = usePipelineStore((state) => {
    const run = state.runs[taskId];
    return run?.streaming ? `${run.runId}:${run.phase}:${run.status}:${run.iteration}` : null;
  });
  useEffect(() => {
    if (moment) void refetch();
  }, [moment, refetch]);
  return query;
}
