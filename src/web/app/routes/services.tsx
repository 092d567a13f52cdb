import { useParams } from 'react-router';
import { ServicesView } from '@/web/features/services/components/services-view';

export function ServicesRoute() {
  const { projectId = '' } = useParams();
  return <ServicesView key={projectId} projectId={projectId} />;
}
