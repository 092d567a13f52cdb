import { Columns2, FolderGit2, GitBranch, X } from 'lucide-react';
import { useSearchParams } from 'react-router';
import type { Workspace } from '@/contracts/services';
import { Button } from '@/web/components/ui/button';
import { EmptyState } from '@/web/components/ui/empty-state';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { cn } from '@/web/lib/cn';
import { useWorkspaces } from '../api/get-workspaces';
import { workspaceLabel } from '../utils/workspace-label';
import { WorkspaceServices } from './workspace-services';

function WorkspaceColumn({ workspace, onClose }: { workspace: Workspace; onClose?: () => void }) {
  return (
    <section
      className="flex min-w-0 flex-1 flex-col gap-3"
      aria-label={`Services of ${workspaceLabel(workspace)}`}
    >
      <header className="flex items-center gap-2">
        {workspace.kind === 'project' ? (
          <FolderGit2 aria-hidden="true" className="size-4 text-zinc-500" />
        ) : (
          <GitBranch aria-hidden="true" className="size-4 text-zinc-500" />
        )}
        <h3 className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-700">
          {workspaceLabel(workspace)}
        </h3>
        {onClose && (
          <Button size="icon-sm" variant="ghost" onClick={onClose} aria-label="Close the comparison">
            <X aria-hidden="true" className="size-3.5" />
          </Button>
        )}
      </header>
      {workspace.heldAt && (
        <p
          className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-900"
          data-testid="workspace-held"
        >
          Its services run on <code className="font-mono">{workspace.heldAt.slice(0, 7)}</code>;{' '}
          {workspace.branch} has moved on since. The files follow when its last service stops: stop and start
          them to run the new {workspace.branch}.
        </p>
      )}
      <WorkspaceServices workspaceId={workspace.id} />
    </section>
  );
}

/**
 * The project page's Services view: its workspaces (the project's checkout, each run's worktree),
 * the chosen one's services, and a run's services beside the project's to compare.
 * The choice lives in the URL (`?workspace=…&compare=1`), so a task can link to it.
 */
export function ServicesView({ projectId }: { projectId: string }) {
  const workspaces = useWorkspaces(projectId);
  const [params, setParams] = useSearchParams();

  if (workspaces.isPending) return <LoadingState label="Loading workspaces…" />;
  if (workspaces.isError) {
    return (
      <ErrorState
        title="Could not load the workspaces"
        error={workspaces.error}
        onRetry={() => void workspaces.refetch()}
        retrying={workspaces.isFetching}
      />
    );
  }
  const list = workspaces.data.workspaces;
  const project = list.find((workspace) => workspace.kind === 'project');
  const selected = list.find((workspace) => workspace.id === params.get('workspace')) ?? project ?? list[0];
  if (!selected) return <EmptyState title="No workspaces" description="This project has no checkout yet." />;
  const comparing = params.get('compare') === '1' && selected.kind === 'run' && project !== undefined;
  const select = (workspace: Workspace, compare = false) =>
    setParams(compare ? { workspace: workspace.id, compare: '1' } : { workspace: workspace.id });

  return (
    <div className="flex h-full min-h-0 flex-col md:flex-row" data-testid="services-view">
      <nav
        aria-label="Workspaces"
        className="flex shrink-0 flex-col gap-1 border-b border-zinc-200 bg-zinc-50 p-3 md:w-64 md:border-r md:border-b-0"
      >
        <h2 className="px-2 pb-1 text-xs font-medium text-zinc-500">Workspaces</h2>
        {list.map((workspace) => (
          <button
            key={workspace.id}
            type="button"
            onClick={() => select(workspace)}
            aria-current={workspace.id === selected.id ? 'true' : undefined}
            data-testid="workspace-item"
            data-kind={workspace.kind}
            className={cn(
              'flex items-center gap-2 rounded-md px-2 py-1.5 text-left text-xs',
              'focus-visible:outline-2 focus-visible:outline-sky-500',
              workspace.id === selected.id
                ? 'bg-white font-medium text-zinc-900 shadow-xs ring-1 ring-zinc-200'
                : 'text-zinc-600 hover:bg-white',
            )}
          >
            {workspace.kind === 'project' ? (
              <FolderGit2 aria-hidden="true" className="size-3.5 shrink-0" />
            ) : (
              <GitBranch aria-hidden="true" className="size-3.5 shrink-0" />
            )}
            <span className="min-w-0 truncate font-mono">{workspaceLabel(workspace)}</span>
          </button>
        ))}
        {list.length === 1 && (
          <p className="px-2 pt-2 text-[11px] text-zinc-500">
            A task’s run adds its worktree here while it exists.
          </p>
        )}
      </nav>
      <div className="min-h-0 flex-1 overflow-y-auto p-4">
        {selected.kind === 'run' && project && !comparing && (
          <div className="mb-3 flex justify-end">
            <Button size="sm" onClick={() => select(selected, true)} data-testid="services-compare">
              <Columns2 aria-hidden="true" className="size-3.5" />
              Compare with {project.branch}
            </Button>
          </div>
        )}
        <div className="flex flex-col gap-6 xl:flex-row">
          {comparing && project && <WorkspaceColumn key={project.id} workspace={project} />}
          <WorkspaceColumn
            key={selected.id}
            workspace={selected}
            onClose={comparing ? () => select(selected) : undefined}
          />
        </div>
      </div>
    </div>
  );
}
