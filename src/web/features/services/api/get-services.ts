import { useQuery } from '@tanstack/react-query';
import type { Service, ServiceList } from '@/contracts/services';
import { apiRequest } from '@/web/lib/api-client';

export const servicesQueryKey = (workspaceId: string) => ['services', workspaceId] as const;

export const servicesPath = (workspaceId: string) =>
  `/api/workspaces/${encodeURIComponent(workspaceId)}/services`;

export const servicePath = (workspaceId: string, serviceId: string) =>
  `${servicesPath(workspaceId)}/${encodeURIComponent(serviceId)}`;

export function getServices(workspaceId: string, signal?: AbortSignal): Promise<ServiceList> {
  return apiRequest<ServiceList>(servicesPath(workspaceId), { signal });
}

const isChanging = (service: Service) => service.status === 'starting' || service.status === 'stopping';

/**
 * The services of a workspace. Status changes are not pushed by the server, so the list is polled:
 * every second while a service is starting or stopping, every 5 s otherwise.
 */
export function useServices(workspaceId: string) {
  return useQuery({
    queryKey: servicesQueryKey(workspaceId),
    queryFn: ({ signal }) => getServices(workspaceId, signal),
    refetchInterval: (query) => (query.state.data?.services.some(isChanging) ? 1_000 : 5_000),
  });
}
