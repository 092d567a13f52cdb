import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReviewComment } from '@/contracts/review-comments';
import { apiRequest } from '@/web/lib/api-client';
import { reviewCommentsKey } from './get-review-comments';

/** DELETE /api/pipeline/runs/:runId/comments/:id → 204. */
export function deleteReviewComment(runId: string, commentId: string): Promise<void> {
  return apiRequest<void>(
    `/api/pipeline/runs/${encodeURIComponent(runId)}/comments/${encodeURIComponent(commentId)}`,
    { method: 'DELETE' },
  );
}

export function useDeleteReviewComment(runId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (commentId: string) => deleteReviewComment(runId, commentId),
    meta: { errorTitle: 'Could not delete the comment' },
    onSuccess: (_result, commentId) => {
      queryClient.setQueryData<ReviewComment[]>(reviewCommentsKey(runId), (comments) =>
        comments?.filter((c) => c.id !== commentId),
      );
      void queryClient.invalidateQueries({ queryKey: reviewCommentsKey(runId) });
    },
  });
}
