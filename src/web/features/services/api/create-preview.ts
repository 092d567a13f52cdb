import type { ServicePreview } from '@/contracts/services';
import { apiRequest } from '@/web/lib/api-client';
import { servicePath } from './get-services';
import { readableServiceError } from './service-errors';

/**
 * POST …/:id/preview → the preview origin with a one-time ticket (60 s). Every iframe load and
 * every new tab asks for a fresh one: a ticket works once.
 */
export async function createPreview(workspaceId: string, serviceId: string): Promise<ServicePreview> {
  try {
    return await apiRequest<ServicePreview>(`${servicePath(workspaceId, serviceId)}/preview`, {
      method: 'POST',
    });
  } catch (error) {
    throw readableServiceError(error);
  }
}
