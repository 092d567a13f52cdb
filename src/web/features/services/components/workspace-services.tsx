import { FileWarning, ServerCog } from 'lucide-react';
import { EmptyState } from '@/web/components/ui/empty-state';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { useServices } from '../api/get-services';
import { readableServiceError } from '../api/service-errors';
import { ServiceCard } from './service-card';

/** The services of one workspace: a card each, and the files that could not be read as services. */
export function WorkspaceServices({ workspaceId }: { workspaceId: string }) {
  const services = useServices(workspaceId);

  if (services.isPending) return <LoadingState label="Loading services…" />;
  if (services.isError) {
    return (
      <ErrorState
        title="Could not load the services"
        error={readableServiceError(services.error)}
        onRetry={() => void services.refetch()}
        retrying={services.isFetching}
      />
    );
  }
  const { services: list, warnings } = services.data;
  return (
    <div className="flex flex-col gap-3" data-testid="workspace-services" data-workspace-id={workspaceId}>
      {list.length === 0 ? (
        <EmptyState
          icon={ServerCog}
          title="No services in this workspace"
          description={
            <>
              Add an executable file to <code className="font-mono text-xs">.discobot/services/</code> with
              front matter such as <code className="font-mono text-xs">http: auto</code> to run a dev server
              here.
            </>
          }
        />
      ) : (
        list.map((service) => <ServiceCard key={service.id} workspaceId={workspaceId} service={service} />)
      )}
      {warnings.length > 0 && (
        <ul
          className="flex flex-col gap-1 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-xs text-amber-800"
          data-testid="service-warnings"
        >
          {warnings.map((warning) => (
            <li key={`${warning.file}:${warning.message}`} className="flex gap-1.5">
              <FileWarning aria-hidden="true" className="mt-px size-3.5 shrink-0" />
              <span>
                <code className="font-mono">{warning.file}</code>: {warning.message}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
