import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { cn } from '@/web/lib/cn';

interface EmptyStateProps {
  icon?: LucideIcon;
  title: string;
  description?: ReactNode;
  action?: ReactNode;
  className?: string;
}

export function EmptyState({ icon: Icon, title, description, action, className }: EmptyStateProps) {
  return (
    <div className={cn('flex flex-col items-center justify-center gap-2 p-8 text-center', className)}>
      {Icon && <Icon aria-hidden="true" className="size-8 text-zinc-300" strokeWidth={1.5} />}
      <p className="text-sm font-medium text-zinc-800">{title}</p>
      {description && <div className="max-w-sm text-sm text-zinc-500">{description}</div>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}
