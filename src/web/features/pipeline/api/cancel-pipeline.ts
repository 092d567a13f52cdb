import { apiRequest } from '@/web/lib/api-client';

/** POST /api/pipeline/:taskId/cancel: stops the run in any phase; the task goes back to Backlog. */
export function cancelPipeline(taskId: string): Promise<{ status: 'cancelled' }> {
  return apiRequest(`/api/pipeline/${encodeURIComponent(taskId)}/cancel`, { method: 'POST' });
}
