import { RotateCw } from 'lucide-react';
import { cn } from '@/web/lib/cn';
import type { UseSSEReturn } from '../sse/use-sse';

/** Whether the run's events are arriving live, and a way to reconnect when they stopped. */
export function StreamStatus({ sse }: { sse: UseSSEReturn }) {
  if (sse.state === 'off' || sse.state === 'idle') return null;
  const label = sse.state === 'open' ? 'Live' : sse.state === 'failed' ? 'Disconnected' : 'Connecting…';
  return (
    <span
      className="flex items-center gap-1.5 text-[11px] text-zinc-500"
      data-testid="stream-status"
      data-state={sse.state}
    >
      <span
        aria-hidden="true"
        className={cn(
          'size-1.5 rounded-full',
          sse.state === 'open' ? 'bg-emerald-500' : sse.state === 'failed' ? 'bg-red-500' : 'bg-amber-400',
        )}
      />
      {label}
      {sse.state === 'failed' && (
        <button
          type="button"
          onClick={sse.reconnect}
          className="flex items-center gap-1 font-medium text-sky-700 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500"
          title={sse.error ?? undefined}
          data-testid="stream-reconnect"
        >
          <RotateCw aria-hidden="true" className="size-3" />
          Reconnect
        </button>
      )}
    </span>
  );
}
