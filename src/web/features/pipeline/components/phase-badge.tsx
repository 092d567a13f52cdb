import { CircleAlert, CircleCheck, CircleX, LoaderCircle, PauseCircle } from 'lucide-react';
import { Badge } from '@/web/components/ui/badge';
import { cn } from '@/web/lib/cn';
import type { RunLabel, RunTone } from '../utils/run-labels';

const toneStyle: Record<RunTone, string> = {
  active: 'bg-sky-50 text-sky-800 ring-sky-200',
  paused: 'bg-amber-50 text-amber-800 ring-amber-200',
  passed: 'bg-emerald-50 text-emerald-800 ring-emerald-200',
  failed: 'bg-red-50 text-red-700 ring-red-200',
  cancelled: 'bg-zinc-100 text-zinc-600 ring-zinc-200',
};

const toneIcon = {
  active: LoaderCircle,
  paused: PauseCircle,
  passed: CircleCheck,
  failed: CircleAlert,
  cancelled: CircleX,
} as const;

/** A run's phase or outcome as a small badge ("Coding 2/3", "Paused", "Passed"). */
export function PhaseBadge({ label, tone, className }: RunLabel & { className?: string }) {
  const Icon = toneIcon[tone];
  return (
    <Badge className={cn(toneStyle[tone], className)} data-testid="task-phase-badge" data-tone={tone}>
      <Icon aria-hidden="true" className={cn('size-3', tone === 'active' && 'animate-spin')} />
      <span className="sr-only">Pipeline: </span>
      {label}
    </Badge>
  );
}
