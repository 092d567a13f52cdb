import type { ComponentProps } from 'react';
import { cn } from '@/web/lib/cn';
import { controlClass } from './input';

export function Textarea({ className, ...props }: ComponentProps<'textarea'>) {
  return (
    <textarea
      className={cn(controlClass, 'min-h-24 resize-y py-1.5 leading-relaxed', className)}
      {...props}
    />
  );
}
