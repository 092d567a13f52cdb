import { Network } from 'lucide-react';
import { type ReactNode, useEffect, useState } from 'react';
import { EmptyState } from '@/web/components/ui/empty-state';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { isApiError } from '@/web/lib/api-client';

/**
 * The graph of a head being built: GET /api/graph answers once the build is done (a cold build of a
 * large repository takes seconds), so the page says what it waits for.
 */
export function GraphBuilding({ branch }: { branch: string }) {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), 3_000);
    return () => clearTimeout(timer);
  }, []);
  return (
    <div className="flex h-full flex-col items-center justify-center" data-testid="graph-building">
      <LoadingState label={`Building the import graph of ${branch}…`} />
      {slow && (
        <p className="max-w-sm text-center text-xs text-zinc-500">
          The first build reads every source file of the branch; later ones only what changed.
        </p>
      )}
    </div>
  );
}

/** No graph to draw: the branch has no commit yet, or no file that imports or is imported. */
export function GraphEmpty({
  branch,
  noBranch,
  action,
}: {
  branch: string;
  noBranch: boolean;
  action?: ReactNode;
}) {
  return (
    <EmptyState
      icon={Network}
      title={noBranch ? `No commits on ${branch} yet` : `No source files on ${branch} yet`}
      description={
        <>
          The graph shows the JavaScript, TypeScript and Python files of {branch} and their imports. Push some
          to the project’s remote, and it appears here.
        </>
      }
      action={action}
      className="h-full"
    />
  );
}

/** True when the answer means "no such branch yet" (a repository without commits on it). */
export const isMissingBranch = (error: unknown) => isApiError(error) && error.code === 'BRANCH_NOT_FOUND';

export function GraphFailed({
  error,
  onRetry,
  retrying,
}: {
  error: unknown;
  onRetry: () => void;
  retrying: boolean;
}) {
  const unavailable = isApiError(error) && error.code === 'GRAPH_UNAVAILABLE';
  return (
    <ErrorState
      title={unavailable ? 'The import graph could not be built' : 'Could not load the import graph'}
      error={error}
      onRetry={onRetry}
      retrying={retrying}
      className="h-full"
    />
  );
}

/** The graph cannot be drawn here (no WebGL, or its code did not load): the legend still lists the locks. */
export function CanvasUnavailable({ reason }: { reason: string }) {
  return (
    <div
      role="alert"
      data-testid="graph-canvas-unavailable"
      className="flex h-full items-center justify-center p-8 pl-72 text-center text-sm text-zinc-500"
    >
      This browser cannot draw the graph ({reason}). The locked files are listed beside it, and the search
      still opens a file.
    </div>
  );
}
