import { apiRequest } from '@/web/lib/api-client';
import type { RunRequest } from '@/web/lib/run-settings';

/** POST /api/tasks/:id/start-pipeline: 202 once the run is recorded; it goes on in the background. */
export function startPipeline(taskId: string, request: RunRequest): Promise<{ runId: string }> {
  return apiRequest(`/api/tasks/${encodeURIComponent(taskId)}/start-pipeline`, {
    method: 'POST',
    body: request.options,
    headers: request.headers,
  });
}
