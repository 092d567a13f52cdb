import type { ComponentProps } from 'react';
import { cn } from '@/web/lib/cn';

export const controlClass = cn(
  'w-full rounded-md border border-zinc-300 bg-white px-2.5 text-sm text-zinc-900 shadow-xs',
  'placeholder:text-zinc-400 focus:border-sky-500 focus:outline-2 focus:outline-sky-500/30',
  'disabled:cursor-not-allowed disabled:bg-zinc-100 aria-invalid:border-red-500',
);

export function Input({ className, ...props }: ComponentProps<'input'>) {
  return <input className={cn(controlClass, 'h-8', className)} {...props} />;
}
