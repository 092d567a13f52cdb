import { Columns2 } from 'lucide-react';
import { Link } from 'react-router';
import { useWorkspaces } from '../api/get-workspaces';
import { WorkspaceServices } from './workspace-services';

/**
 * The task drawer's Services section: the services of the task's run worktree, to try the branch
 * before approving, with a link to see it beside the project's own version.
 */
export function TaskServices({ projectId, taskId }: { projectId: string; taskId: string }) {
  const workspaces = useWorkspaces(projectId);
  const workspace = workspaces.data?.workspaces.filter((candidate) => candidate.taskId === taskId).at(-1);

  return (
    <section
      aria-labelledby="task-services-heading"
      className="flex flex-col gap-2"
      data-testid="task-services"
    >
      <div className="flex items-center gap-2">
        <h3 id="task-services-heading" className="flex-1 text-xs font-medium text-zinc-500">
          Services
        </h3>
        {workspace && (
          <Link
            to={`/projects/${encodeURIComponent(projectId)}/services?workspace=${encodeURIComponent(workspace.id)}&compare=1`}
            className="inline-flex items-center gap-1 text-xs font-medium text-zinc-700 underline-offset-4 hover:underline"
            data-testid="task-services-compare"
          >
            <Columns2 aria-hidden="true" className="size-3.5" />
            Compare with the project
          </Link>
        )}
      </div>
      {workspace ? (
        <WorkspaceServices workspaceId={workspace.id} />
      ) : (
        <p className="text-xs text-zinc-500">
          {workspaces.isPending ? 'Loading…' : 'This task has no worktree now, so there is nothing to run.'}
        </p>
      )}
    </section>
  );
}
