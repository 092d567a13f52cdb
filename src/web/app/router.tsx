import { createBrowserRouter } from 'react-router';
import { ProjectLayout } from './layout/project-layout';
import { RequireAuth } from './layout/require-auth';
import { LoginRoute, RegisterRoute } from './routes/auth';
import { BoardRoute } from './routes/board';
import { FilesRoute } from './routes/files';
import { GraphRoute } from './routes/graph';
import { NotFoundRoute } from './routes/not-found';
import { ReviewRoute } from './routes/review';
import { RootRedirect } from './routes/root-redirect';
import { RouteError } from './routes/route-error';
import { ServicesRoute } from './routes/services';
import { SettingsRoute } from './routes/settings';

export const router = createBrowserRouter([
  { path: '/login', element: <LoginRoute />, errorElement: <RouteError /> },
  { path: '/register', element: <RegisterRoute />, errorElement: <RouteError /> },
  {
    path: '/',
    element: <RequireAuth />,
    errorElement: <RouteError />,
    children: [
      { index: true, element: <RootRedirect /> },
      { path: 'settings', element: <SettingsRoute /> },
      {
        path: 'projects/:projectId',
        element: <ProjectLayout />,
        children: [
          { index: true, element: <BoardRoute /> },
          { path: 'files', element: <FilesRoute /> },
          { path: 'graph', element: <GraphRoute /> },
          { path: 'services', element: <ServicesRoute /> },
          { path: 'tasks/:taskId/review', element: <ReviewRoute /> },
        ],
      },
      { path: '*', element: <NotFoundRoute /> },
    ],
  },
]);
