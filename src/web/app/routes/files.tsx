import { useParams } from 'react-router';
import { FilesView } from '@/web/features/files/components/files-view';
import { CloneBox } from '@/web/features/projects/components/clone-box';

export function FilesRoute() {
  const { projectId = '' } = useParams();
  return (
    <FilesView key={projectId} projectId={projectId} repositoryInfo={<CloneBox projectId={projectId} />} />
  );
}
