import { RotateCw, TriangleAlert } from 'lucide-react';
import { errorMessage } from '@/web/lib/api-client';
import { cn } from '@/web/lib/cn';
import { Button } from './button';

interface ErrorStateProps {
  title?: string;
  error: unknown;
  onRetry?: () => void;
  retrying?: boolean;
  className?: string;
}

export function ErrorState({
  title = 'Could not load',
  error,
  onRetry,
  retrying,
  className,
}: ErrorStateProps) {
  return (
    <div
      role="alert"
      className={cn('flex flex-col items-center justify-center gap-2 p-8 text-center', className)}
    >
      <TriangleAlert aria-hidden="true" className="size-8 text-amber-500" strokeWidth={1.5} />
      <p className="text-sm font-medium text-zinc-800">{title}</p>
      <p className="max-w-sm text-sm text-zinc-500">{errorMessage(error)}</p>
      {onRetry && (
        <Button className="mt-2" onClick={onRetry} loading={retrying} data-testid="retry">
          {!retrying && <RotateCw aria-hidden="true" className="size-3.5" />}
          Retry
        </Button>
      )}
    </div>
  );
}
