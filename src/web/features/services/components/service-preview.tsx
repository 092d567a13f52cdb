import { ExternalLink, RotateCw } from 'lucide-react';
import { toast } from 'sonner';
import type { Service } from '@/contracts/services';
import { Button } from '@/web/components/ui/button';
import { Spinner } from '@/web/components/ui/spinner';
import { serviceErrorMessage } from '../api/service-errors';
import { openPreviewTab, usePreviewUrl } from '../hooks/use-preview-url';

export function openInNewTab(workspaceId: string, service: Service) {
  openPreviewTab(workspaceId, service.id).catch((error: unknown) =>
    toast.error(`Could not open ${service.name}`, { description: serviceErrorMessage(error) }),
  );
}

/**
 * The service in an iframe, on its own preview origin (so its scripts cannot act as the signed-in
 * person on AutoCoder's): refresh asks for a new one-time ticket.
 */
export function ServicePreview({ workspaceId, service }: { workspaceId: string; service: Service }) {
  const preview = usePreviewUrl(workspaceId, service.id);

  return (
    <div className="flex flex-col gap-1.5" data-testid="service-preview">
      <div className="flex items-center gap-1.5">
        <span
          className="min-w-0 flex-1 truncate font-mono text-[11px] text-zinc-500"
          title={preview.url ?? ''}
        >
          {preview.url ? new URL(preview.url).host + (service.urlPath ?? '/') : 'Preview'}
        </span>
        <Button
          size="sm"
          variant="ghost"
          onClick={preview.refresh}
          loading={preview.loading}
          data-testid="service-preview-refresh"
          aria-label={`Refresh the preview of ${service.name}`}
        >
          {!preview.loading && <RotateCw aria-hidden="true" className="size-3" />}
          Refresh
        </Button>
        <Button
          size="sm"
          variant="ghost"
          onClick={() => openInNewTab(workspaceId, service)}
          data-testid="service-preview-open"
        >
          <ExternalLink aria-hidden="true" className="size-3" />
          Open in new tab
        </Button>
      </div>
      {preview.error ? (
        <p className="rounded-md border border-red-200 bg-red-50 px-3 py-2 text-xs text-red-700" role="alert">
          {preview.error}
        </p>
      ) : preview.url ? (
        <iframe
          key={preview.url}
          src={preview.url}
          title={`Preview of ${service.name}`}
          data-testid="service-preview-frame"
          // Its own origin: it keeps its cookies (the preview grant) and cannot reach AutoCoder's.
          sandbox="allow-same-origin allow-scripts allow-forms allow-popups allow-modals allow-downloads"
          className="h-96 w-full rounded-md border border-zinc-200 bg-white"
        />
      ) : (
        <div className="flex h-96 items-center justify-center rounded-md border border-zinc-200 text-zinc-400">
          <Spinner />
        </div>
      )}
    </div>
  );
}
