import type { RequestChangesResponse } from '@/contracts/pipeline';
import { apiRequest } from '@/web/lib/api-client';
import type { RunRequest } from '@/web/lib/run-settings';

/** POST /api/pipeline/:taskId/request-changes: back to coding with the person's feedback. */
export function requestChanges(
  taskId: string,
  feedback: string,
  request: RunRequest,
): Promise<RequestChangesResponse> {
  return apiRequest(`/api/pipeline/${encodeURIComponent(taskId)}/request-changes`, {
    method: 'POST',
    body: { ...request.options, feedback },
    headers: request.headers,
  });
}
