import { LoaderCircle } from 'lucide-react';
import { cn } from '@/web/lib/cn';

export function Spinner({ className }: { className?: string }) {
  return <LoaderCircle aria-hidden="true" className={cn('size-4 animate-spin', className)} />;
}

/** A centred spinner with a label for screen readers, for whole regions that are loading. */
export function LoadingState({ label = 'Loading…', className }: { label?: string; className?: string }) {
  return (
    <div
      role="status"
      className={cn('flex items-center justify-center gap-2 p-8 text-sm text-zinc-500', className)}
    >
      <Spinner />
      <span>{label}</span>
    </div>
  );
}
