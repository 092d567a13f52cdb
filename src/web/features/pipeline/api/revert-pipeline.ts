import type { RevertResponse } from '@/contracts/pipeline';
import { apiRequest } from '@/web/lib/api-client';

/**
 * POST /api/pipeline/:taskId/revert: a revert commit on the default branch takes the approval
 * back and the task returns to Review (409 MERGE_CONFLICT, naming the files, when git cannot).
 */
export function revertPipeline(taskId: string): Promise<RevertResponse> {
  return apiRequest(`/api/pipeline/${encodeURIComponent(taskId)}/revert`, { method: 'POST' });
}
