import { FolderX } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, Outlet, useParams } from 'react-router';
import { EmptyState } from '@/web/components/ui/empty-state';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { useProjects } from '@/web/features/projects/api/get-projects';
import { AppShell } from './app-shell';

/** /projects/:projectId — the shell around the board and the files of one project. */
export function ProjectLayout() {
  const { projectId } = useParams();
  const projects = useProjects();
  const project = projects.data?.find((candidate) => candidate.id === projectId);

  let content: ReactNode;
  if (project) {
    content = (
      <>
        <title>{`${project.name} · AutoCoder`}</title>
        <Outlet />
      </>
    );
  } else if (projects.isError) {
    content = (
      <ErrorState
        title="Could not load your projects"
        error={projects.error}
        onRetry={() => void projects.refetch()}
        retrying={projects.isFetching}
      />
    );
  } else if (projects.isPending) {
    content = <LoadingState label="Loading project…" />;
  } else {
    content = (
      <EmptyState
        icon={FolderX}
        title="Project not found"
        description="It may have been deleted, or it belongs to someone else."
        action={
          <Link to="/" className="text-sm font-medium text-zinc-900 underline underline-offset-4">
            Go to your first project
          </Link>
        }
      />
    );
  }

  return <AppShell projectId={project?.id}>{content}</AppShell>;
}
