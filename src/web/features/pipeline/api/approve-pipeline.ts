import type { ApproveResponse } from '@/contracts/pipeline';
import { apiRequest } from '@/web/lib/api-client';

/** POST /api/pipeline/:taskId/approve: merges the run's branch (409 MERGE_CONFLICT when git cannot). */
export function approvePipeline(taskId: string): Promise<ApproveResponse> {
  return apiRequest(`/api/pipeline/${encodeURIComponent(taskId)}/approve`, { method: 'POST' });
}
