import { FolderPlus } from 'lucide-react';
import { Navigate } from 'react-router';
import { EmptyState } from '@/web/components/ui/empty-state';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { useProjects } from '@/web/features/projects/api/get-projects';
import { AppShell } from '../layout/app-shell';

/** "/" — the board of the first project. */
export function RootRedirect() {
  const projects = useProjects();
  const first = projects.data?.[0];
  if (first) return <Navigate to={`/projects/${first.id}`} replace />;
  return (
    <AppShell projectId={undefined}>
      {projects.isError ? (
        <ErrorState
          title="Could not load your projects"
          error={projects.error}
          onRetry={() => void projects.refetch()}
          retrying={projects.isFetching}
        />
      ) : projects.isPending ? (
        <LoadingState label="Loading projects…" />
      ) : (
        <EmptyState
          icon={FolderPlus}
          title="No projects yet"
          description="Create one with the + button in the header, or import a git repository."
        />
      )}
    </AppShell>
  );
}
