import { useParams } from 'react-router';
import { FilesView } from '@/web/features/files/components/files-view';

export function FilesRoute() {
  const { projectId = '' } = useParams();
  return <FilesView key={projectId} projectId={projectId} />;
}
