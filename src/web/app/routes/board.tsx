import { useParams } from 'react-router';
import { BoardView } from '../../features/board/components/board-view';

export function BoardRoute() {
  const { projectId = '' } = useParams();
  return <BoardView key={projectId} projectId={projectId} />;
}
