import type { ComponentProps } from 'react';
import { cn } from '@/web/lib/cn';

export function Badge({ className, ...props }: ComponentProps<'span'>) {
  return (
    <span
      className={cn(
        'inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-[11px] leading-none font-medium whitespace-nowrap',
        'bg-zinc-100 text-zinc-700 ring-1 ring-zinc-200 ring-inset',
        className,
      )}
      {...props}
    />
  );
}
