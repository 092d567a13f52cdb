import { apiRequest } from '@/web/lib/api-client';
import type { RunRequest } from '@/web/lib/run-settings';

export interface RetryResponse {
  runId: string;
  retryCount: number;
  /** The backoff before the failed call is made again. */
  delayMs: number;
}

/** POST /api/pipeline/:taskId/retry: resumes a paused run at the step that failed. */
export function retryPipeline(taskId: string, request: RunRequest): Promise<RetryResponse> {
  return apiRequest(`/api/pipeline/${encodeURIComponent(taskId)}/retry`, {
    method: 'POST',
    body: request.options,
    headers: request.headers,
  });
}
