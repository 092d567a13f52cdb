import { useInfiniteQuery } from '@tanstack/react-query';
import type { ProjectActivityResponse } from '@/contracts/coordination';
import { apiRequest } from '@/web/lib/api-client';

/** How many events one page of the feed's history holds. */
export const ACTIVITY_PAGE_SIZE = 50;

export const projectActivityQueryKey = (projectId: string) => ['project-activity', projectId] as const;

/** A page of the project's lock events, newest first, older than the event `before` (the newest without it). */
export function getProjectActivity(projectId: string, before?: number): Promise<ProjectActivityResponse> {
  const query = new URLSearchParams({ limit: String(ACTIVITY_PAGE_SIZE) });
  if (before !== undefined) query.set('before', String(before));
  return apiRequest<ProjectActivityResponse>(
    `/api/projects/${encodeURIComponent(projectId)}/activity?${query}`,
  );
}

/**
 * The feed's history, loaded when the board opens and paged back on demand. It is read once: the
 * project's stream brings what happens after (the feed merges both by event id).
 */
export function useProjectActivity(projectId: string) {
  return useInfiniteQuery({
    queryKey: projectActivityQueryKey(projectId),
    queryFn: ({ pageParam }) => getProjectActivity(projectId, pageParam),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.hasMore ? last.events.at(-1)?.id : undefined),
    enabled: projectId !== '',
    staleTime: Number.POSITIVE_INFINITY,
  });
}
