import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ServiceStarting } from '@/contracts/services';
import { apiRequest, isApiError } from '@/web/lib/api-client';
import { servicePath, servicesQueryKey } from './get-services';
import { readableServiceError } from './service-errors';

export type StartOutcome = ServiceStarting | { status: 'already-running'; serviceId: string };

/**
 * POST …/:id/start: 202 once the process is spawning. A 409 (it was started meanwhile, from another
 * tab) is not a failure: the list is refreshed to show it running.
 */
export async function startService(workspaceId: string, serviceId: string): Promise<StartOutcome> {
  try {
    return await apiRequest<ServiceStarting>(`${servicePath(workspaceId, serviceId)}/start`, {
      method: 'POST',
    });
  } catch (error) {
    if (isApiError(error) && error.code === 'service_already_running') {
      return { status: 'already-running', serviceId };
    }
    throw readableServiceError(error);
  }
}

export function useStartService(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (serviceId: string) => startService(workspaceId, serviceId),
    meta: { errorTitle: 'Could not start the service' },
    onSettled: () => queryClient.invalidateQueries({ queryKey: servicesQueryKey(workspaceId) }),
  });
}
