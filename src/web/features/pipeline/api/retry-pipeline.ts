import type { RetryResponse } from '@/contracts/pipeline';
import { apiRequest } from '@/web/lib/api-client';
import type { RunRequest } from '@/web/lib/run-settings';

/** POST /api/pipeline/:taskId/retry: resumes a paused run at the step that failed. */
export function retryPipeline(taskId: string, request: RunRequest): Promise<RetryResponse> {
  return apiRequest(`/api/pipeline/${encodeURIComponent(taskId)}/retry`, {
    method: 'POST',
    body: request.options,
    headers: request.headers,
  });
}
