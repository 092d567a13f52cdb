import { useRouteError } from 'react-router';
import { Brand } from '@/web/components/brand';
import { ErrorState } from '@/web/components/ui/error-state';

/** Shown when rendering a route throws: a bug, not a failed request (those have their own states). */
export function RouteError() {
  const error = useRouteError();
  return (
    <div className="flex h-full flex-col items-center justify-center gap-4 p-6">
      <Brand />
      <ErrorState
        title="Something broke on this page"
        error={error}
        onRetry={() => window.location.reload()}
      />
    </div>
  );
}
