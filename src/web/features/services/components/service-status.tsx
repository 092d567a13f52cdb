import type { ServiceStatus } from '@/contracts/services';
import { cn } from '@/web/lib/cn';

const LOOK: Record<ServiceStatus | 'passive', { label: string; dot: string; text: string }> = {
  stopped: { label: 'Stopped', dot: 'bg-zinc-400', text: 'text-zinc-600' },
  starting: { label: 'Starting', dot: 'bg-amber-500 animate-pulse', text: 'text-amber-700' },
  running: { label: 'Running', dot: 'bg-emerald-500', text: 'text-emerald-700' },
  stopping: { label: 'Stopping', dot: 'bg-orange-500 animate-pulse', text: 'text-orange-700' },
  error: { label: 'Error', dot: 'bg-red-500', text: 'text-red-700' },
  passive: { label: 'Passive', dot: 'bg-sky-400', text: 'text-sky-700' },
};

/** A service's lifecycle state (seed 002), or "Passive" for an endpoint AutoCoder never starts. */
export function ServiceStatusBadge({ status, passive }: { status: ServiceStatus; passive: boolean }) {
  const look = LOOK[passive ? 'passive' : status];
  return (
    <span
      className={cn('inline-flex items-center gap-1.5 text-xs font-medium', look.text)}
      data-testid="service-status"
      data-status={passive ? 'passive' : status}
    >
      <span aria-hidden="true" className={cn('size-2 rounded-full', look.dot)} />
      {look.label}
    </span>
  );
}
