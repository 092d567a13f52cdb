import { CircleX, Info, type LucideIcon, TriangleAlert } from 'lucide-react';
import type { FindingSeverity } from '@/contracts/pipeline';
import { cn } from '@/web/lib/cn';

interface SeverityLook {
  label: string;
  icon: LucideIcon;
  /** The icon's and count's colour. */
  text: string;
  /** A finding's box under its line. */
  box: string;
}

/** Colour and icon per severity, so a finding reads the same in the tree, on its line and above the files. */
export const SEVERITY: Record<FindingSeverity, SeverityLook> = {
  error: {
    label: 'Error',
    icon: CircleX,
    text: 'text-red-600',
    box: 'border-red-200 bg-red-50 text-red-950',
  },
  warning: {
    label: 'Warning',
    icon: TriangleAlert,
    text: 'text-amber-600',
    box: 'border-amber-200 bg-amber-50 text-amber-950',
  },
  info: { label: 'Info', icon: Info, text: 'text-sky-600', box: 'border-sky-200 bg-sky-50 text-sky-950' },
};

export function SeverityIcon({ severity, className }: { severity: FindingSeverity; className?: string }) {
  const { icon: Icon, text, label } = SEVERITY[severity];
  return <Icon aria-label={label} role="img" className={cn('size-3.5 shrink-0', text, className)} />;
}
