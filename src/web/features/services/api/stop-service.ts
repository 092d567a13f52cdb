import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ServiceStopped } from '@/contracts/services';
import { apiRequest, isApiError } from '@/web/lib/api-client';
import { servicePath, servicesQueryKey } from './get-services';
import { readableServiceError } from './service-errors';

export type StopOutcome = ServiceStopped | { status: 'not-running'; serviceId: string };

/**
 * POST …/:id/stop answers once the process has ended (SIGTERM, SIGKILL after 5 s). A 400
 * `service_not_running` means it ended meanwhile: what the person wanted.
 */
export async function stopService(workspaceId: string, serviceId: string): Promise<StopOutcome> {
  try {
    return await apiRequest<ServiceStopped>(`${servicePath(workspaceId, serviceId)}/stop`, {
      method: 'POST',
    });
  } catch (error) {
    if (isApiError(error) && error.code === 'service_not_running')
      return { status: 'not-running', serviceId };
    throw readableServiceError(error);
  }
}

export function useStopService(workspaceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (serviceId: string) => stopService(workspaceId, serviceId),
    meta: { errorTitle: 'Could not stop the service' },
    onSettled: () => queryClient.invalidateQueries({ queryKey: servicesQueryKey(workspaceId) }),
  });
}
