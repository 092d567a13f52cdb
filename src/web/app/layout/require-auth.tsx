import { Navigate, Outlet } from 'react-router';
import { Brand } from '@/web/components/brand';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { useMe } from '@/web/features/auth/api/get-me';

/** Renders its routes for a signed-in user, sends everyone else to /login. */
export function RequireAuth() {
  const me = useMe();
  if (me.data) return <Outlet />;
  if (me.data === null) return <Navigate to="/login" replace />;
  return (
    <div className="flex h-full flex-col items-center justify-center gap-4 p-6">
      <Brand />
      {me.isError ? (
        <ErrorState
          title="AutoCoder is not reachable"
          error={me.error}
          onRetry={() => void me.refetch()}
          retrying={me.isFetching}
        />
      ) : (
        <LoadingState />
      )}
    </div>
  );
}
