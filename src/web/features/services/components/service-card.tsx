import { Eye, EyeOff, Play, ScrollText, Square } from 'lucide-react';
import { useState } from 'react';
import type { Service } from '@/contracts/services';
import { Button } from '@/web/components/ui/button';
import { cn } from '@/web/lib/cn';
import { serviceErrorMessage } from '../api/service-errors';
import { useStartService } from '../api/start-service';
import { useStopService } from '../api/stop-service';
import { useServiceOutput } from '../hooks/use-service-output';
import { ServiceLog } from './service-log';
import { ServicePreview } from './service-preview';
import { ServiceStatusBadge } from './service-status';

const ACTIVE = new Set(['starting', 'running', 'stopping']);

function portText(service: Service): string | null {
  const [scheme, port] =
    service.http !== undefined
      ? ['http', service.http]
      : service.https !== undefined
        ? ['https', service.https]
        : [];
  if (!scheme) return null;
  return `${scheme} ${port === 'auto' ? 'auto port' : `:${port}`}${service.urlPath ? ` ${service.urlPath}` : ''}`;
}

const hasPort = (service: Service) => service.http !== undefined || service.https !== undefined;

interface ServiceCardProps {
  workspaceId: string;
  service: Service;
  /** Start with the logs shown. */
  initialLogs?: boolean;
}

/** One service: its state, start and stop, and (toggled) its live log and preview. */
export function ServiceCard({ workspaceId, service, initialLogs = false }: ServiceCardProps) {
  const [showLogs, setShowLogs] = useState(initialLogs);
  const [showPreview, setShowPreview] = useState(false);
  const start = useStartService(workspaceId);
  const stop = useStopService(workspaceId);
  const passive = service.passive === true;
  const active = ACTIVE.has(service.status);
  const output = useServiceOutput(workspaceId, service.id, {
    enabled: showLogs && !passive,
    runKey: service.startedAt,
  });
  const ports = portText(service);
  const previewable = hasPort(service) && (passive || service.status === 'running');
  const failure = start.error ?? stop.error;

  return (
    <article
      className="flex flex-col gap-3 rounded-lg border border-zinc-200 bg-white p-3"
      data-testid="service-card"
      data-service-id={service.id}
      aria-label={service.name}
    >
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-baseline gap-x-2">
            <h4 className="truncate text-sm font-medium text-zinc-900" data-testid="service-name">
              {service.name}
            </h4>
            {service.name !== service.id && (
              <span className="font-mono text-[11px] text-zinc-400">{service.id}</span>
            )}
          </div>
          <div className="mt-0.5 flex flex-wrap items-center gap-x-3 gap-y-1">
            <ServiceStatusBadge status={service.status} passive={passive} />
            {ports && (
              <span className="font-mono text-[11px] text-zinc-500" data-testid="service-port">
                {ports}
              </span>
            )}
            {service.pid !== undefined && (
              <span className="font-mono text-[11px] text-zinc-400">pid {service.pid}</span>
            )}
          </div>
        </div>
        <div className="flex items-center gap-1.5">
          {!passive &&
            (active ? (
              <Button
                size="sm"
                onClick={() => stop.mutate(service.id)}
                loading={stop.isPending || service.status === 'stopping'}
                data-testid="service-stop"
              >
                <Square aria-hidden="true" className="size-3" />
                Stop
              </Button>
            ) : (
              <Button
                size="sm"
                variant="primary"
                onClick={() => {
                  stop.reset();
                  setShowLogs(true);
                  start.mutate(service.id);
                }}
                loading={start.isPending}
                data-testid="service-start"
              >
                <Play aria-hidden="true" className="size-3" />
                Start
              </Button>
            ))}
          {!passive && (
            <Button
              size="sm"
              variant="ghost"
              aria-pressed={showLogs}
              onClick={() => setShowLogs((shown) => !shown)}
              data-testid="service-logs-toggle"
            >
              <ScrollText aria-hidden="true" className="size-3" />
              {showLogs ? 'Hide logs' : 'Logs'}
            </Button>
          )}
          {hasPort(service) && (
            <Button
              size="sm"
              variant="ghost"
              aria-pressed={showPreview}
              disabled={!previewable && !showPreview}
              title={previewable ? undefined : 'Start the service to preview it'}
              onClick={() => setShowPreview((shown) => !shown)}
              data-testid="service-preview-toggle"
            >
              {showPreview ? (
                <EyeOff aria-hidden="true" className="size-3" />
              ) : (
                <Eye aria-hidden="true" className="size-3" />
              )}
              {showPreview ? 'Hide preview' : 'Preview'}
            </Button>
          )}
        </div>
      </div>
      {service.description && <p className="-mt-1 text-xs text-zinc-600">{service.description}</p>}
      {passive && (
        <p className="-mt-1 text-xs text-zinc-500">
          Passive: started outside AutoCoder; AutoCoder only proxies to its port.
        </p>
      )}
      {service.status === 'error' && service.error && (
        <p className="rounded-md bg-red-50 px-2.5 py-1.5 text-xs text-red-700" data-testid="service-error">
          {service.error}
        </p>
      )}
      {failure && (
        <p
          className={cn('rounded-md bg-red-50 px-2.5 py-1.5 text-xs text-red-700')}
          role="alert"
          data-testid="service-action-error"
        >
          {serviceErrorMessage(failure)}
        </p>
      )}
      {showPreview && previewable && <ServicePreview workspaceId={workspaceId} service={service} />}
      {showPreview && !previewable && (
        <p className="text-xs text-zinc-500">The preview shows once the service is running.</p>
      )}
      {showLogs && !passive && <ServiceLog output={output} label={service.name} />}
    </article>
  );
}
