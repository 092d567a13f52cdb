import { useQuery } from '@tanstack/react-query';
import type { ReviewComment } from '@/contracts/review-comments';
import { apiRequest } from '@/web/lib/api-client';

export const reviewCommentsKey = (runId: string) => ['pipeline', 'comments', runId] as const;

export async function getReviewComments(runId: string, signal?: AbortSignal): Promise<ReviewComment[]> {
  const body = await apiRequest<{ comments: ReviewComment[] }>(
    `/api/pipeline/runs/${encodeURIComponent(runId)}/comments`,
    { signal },
  );
  return body.comments;
}

/** GET /api/pipeline/runs/:runId/comments: the person's comments on the run's lines, open and addressed. */
export function useReviewComments(runId: string, enabled = true) {
  return useQuery({
    queryKey: reviewCommentsKey(runId),
    queryFn: ({ signal }) => getReviewComments(runId, signal),
    enabled: enabled && runId !== '',
  });
}

/** Comments not yet sent to the coder: the next request for changes takes them along. */
export const openComments = (comments: readonly ReviewComment[] | undefined) =>
  (comments ?? []).filter((comment) => comment.addressedAt === null);
