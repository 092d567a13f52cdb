import { FlaskConical } from 'lucide-react';
import { Badge } from '@/web/components/ui/badge';
import { cn } from '@/web/lib/cn';

export const SIMULATED_DESCRIPTION =
  'Simulated agents (offline demo): scripted output, no AI model was used.';

/** Marks a run of the offline simulator wherever the run is shown: its output is not AI. */
export function SimulatedBadge({ className }: { className?: string }) {
  return (
    <Badge
      className={cn('bg-violet-50 text-violet-700 ring-violet-200', className)}
      title={SIMULATED_DESCRIPTION}
      data-testid="simulated-badge"
    >
      <FlaskConical aria-hidden="true" className="size-3" />
      Simulated
    </Badge>
  );
}
