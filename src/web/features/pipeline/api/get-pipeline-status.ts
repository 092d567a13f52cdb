import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { PipelineRunDetail } from '@/contracts/pipeline';
import { apiRequest } from '@/web/lib/api-client';
import { usePipelineStore } from '../stores/pipeline-store';
import { productsWanted } from '../stores/run-state';

export type PipelineStatusResponse = (PipelineRunDetail & { runId: string }) | { status: 'none' };

export const pipelineStatusKey = (taskId: string) => ['pipeline', 'status', taskId] as const;

/** A burst of events (a reload replays a whole run) settles before the products are read. */
const PRODUCTS_SETTLE_MS = 150;

export function getPipelineStatus(taskId: string, signal?: AbortSignal): Promise<PipelineStatusResponse> {
  return apiRequest<PipelineStatusResponse>(`/api/pipeline/${encodeURIComponent(taskId)}/status`, { signal });
}

/**
 * The task's latest run as the server has it, read once to seed the pipeline store (the task's
 * events keep it current from there), and again only when events say the run produced something
 * they do not carry: the plan, a commit's files, a review's findings.
 */
export function usePipelineStatus(taskId: string) {
  const query = useQuery({
    queryKey: pipelineStatusKey(taskId),
    queryFn: ({ signal }) => getPipelineStatus(taskId, signal),
    staleTime: 0,
  });
  const data = query.data;
  useEffect(() => {
    if (data && 'runId' in data) usePipelineStore.getState().seedRun(taskId, data);
  }, [taskId, data]);

  const { refetch } = query;
  const wanted = usePipelineStore((state) => productsWanted(state.tasks[taskId]?.confirmed ?? null));
  // Once per product: a copy that turns out older than the events does not start a loop.
  const requested = useRef<string | null>(null);
  useEffect(() => {
    if (!wanted || wanted === requested.current) return;
    const timer = setTimeout(() => {
      requested.current = wanted;
      void refetch();
    }, PRODUCTS_SETTLE_MS);
    return () => clearTimeout(timer);
  }, [wanted, refetch]);
  return query;
}
