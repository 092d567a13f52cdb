import { cn } from '../lib/cn';

/** The AutoCoder mark and name. */
export function Brand({ className, inverted = false }: { className?: string; inverted?: boolean }) {
  return (
    <span className={cn('flex items-center gap-2 text-sm font-semibold tracking-tight', className)}>
      <svg aria-hidden="true" viewBox="0 0 32 32" className="size-6 shrink-0">
        <rect width="32" height="32" rx="7" fill={inverted ? '#fafafa' : '#18181b'} />
        <path
          d="M9 22 16 9l7 13M12 17.5h8"
          stroke={inverted ? '#18181b' : '#fafafa'}
          strokeWidth="2.6"
          fill="none"
          strokeLinecap="round"
          strokeLinejoin="round"
        />
      </svg>
      <span>AutoCoder</span>
    </span>
  );
}
