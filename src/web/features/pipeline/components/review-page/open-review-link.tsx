import { Maximize2 } from 'lucide-react';
import { Link, useParams, useSearchParams } from 'react-router';

/** The path of a task's full-width review page. */
export const reviewPagePath = (projectId: string, taskId: string) =>
  `/projects/${encodeURIComponent(projectId)}/tasks/${encodeURIComponent(taskId)}/review`;

/**
 * "Open full review", for the task drawer's review panel: the drawer's task is the board's
 * `?task=` and its project the route's. Nothing outside a project's board.
 */
export function OpenReviewLink() {
  const { projectId } = useParams();
  const [searchParams] = useSearchParams();
  const taskId = searchParams.get('task');
  if (!projectId || !taskId) return null;
  return (
    <Link
      to={reviewPagePath(projectId, taskId)}
      className="inline-flex items-center gap-1 self-start text-xs font-medium text-sky-700 hover:underline"
      data-testid="open-review-page"
    >
      <Maximize2 aria-hidden="true" className="size-3.5" />
      Open full review
    </Link>
  );
}
