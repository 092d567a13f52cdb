import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ReviewComment, ReviewCommentInput } from '@/contracts/review-comments';
import { apiRequest } from '@/web/lib/api-client';
import { reviewCommentsKey } from './get-review-comments';

/** POST /api/pipeline/runs/:runId/comments → 201 with the comment. */
export function addReviewComment(runId: string, input: ReviewCommentInput): Promise<ReviewComment> {
  return apiRequest<ReviewComment>(`/api/pipeline/runs/${encodeURIComponent(runId)}/comments`, {
    method: 'POST',
    body: input,
  });
}

export function useAddReviewComment(runId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ReviewCommentInput) => addReviewComment(runId, input),
    meta: { errorTitle: 'Could not add the comment' },
    onSuccess: (comment) => {
      queryClient.setQueryData<ReviewComment[]>(reviewCommentsKey(runId), (comments) => [
        ...(comments ?? []).filter((c) => c.id !== comment.id),
        comment,
      ]);
      void queryClient.invalidateQueries({ queryKey: reviewCommentsKey(runId) });
    },
  });
}
