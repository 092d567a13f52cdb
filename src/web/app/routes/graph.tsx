import { useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { graphQueryKey } from '@/web/features/graph/api/get-graph';
import { GraphView } from '@/web/features/graph/components/graph-view';
import { useGraphLockStore } from '@/web/features/graph/stores/graph-lock-store';
import { useProjectEvents } from '@/web/features/pipeline/sse/use-project-events';
import { useProjects } from '@/web/features/projects/api/get-projects';
import { CloneBox, cloneUrlOf } from '@/web/features/projects/components/clone-box';

/**
 * The project's import graph on its default branch (where its runs and agents lock files), kept live
 * by the project's stream: lock events recolour files in place, a move of the branch fetches the
 * graph of the new head.
 */
export function GraphRoute() {
  const { projectId = '' } = useParams();
  const project = useProjects().data?.find((candidate) => candidate.id === projectId);
  const branch = project?.defaultBranch ?? '';
  const queryClient = useQueryClient();
  const applyLock = useGraphLockStore((state) => state.apply);

  useProjectEvents(projectId, {
    onCoordination: (event) => applyLock(projectId, branch, event),
    onHeadMoved: (moved) => {
      if (moved.branch !== branch) return;
      const shown = queryClient.getQueryData<{ version: string }>(graphQueryKey(projectId, branch));
      if (shown?.version !== moved.head)
        void queryClient.invalidateQueries({ queryKey: graphQueryKey(projectId, branch) });
    },
  });

  if (!project) return null;
  return (
    <GraphView
      key={projectId}
      projectId={projectId}
      branch={branch}
      repoUrl={cloneUrlOf(window.location.origin, projectId)}
      emptyAction={<CloneBox projectId={projectId} />}
    />
  );
}
