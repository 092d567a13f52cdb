import { Lock } from 'lucide-react';
import { useEffect, useState } from 'react';
import { cn } from '@/web/lib/cn';
import type { LockWait } from '../stores/run-state';

/**
 * "Waiting for src/a.ts — held by Alice · 42 s left": a run waits for another agent's lock on a file
 * its coder writes, and pauses when the wait ends without it. `compact`: the card's one line.
 */
export function LockWaitNotice({
  wait,
  compact = false,
  testId = 'lock-wait',
}: {
  wait: LockWait;
  compact?: boolean;
  testId?: string;
}) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.ceil((wait.until - now) / 1000));
  const text = `Waiting for ${wait.path} — held by ${wait.holder.name}`;
  return (
    <p
      className={cn(
        'flex min-w-0 items-center gap-1.5 text-amber-800',
        compact ? 'w-full text-[11px]' : 'rounded-md bg-amber-50 px-2 py-1 text-xs',
      )}
      role="status"
      title={`${text}. The run pauses if the lock is not released in time; Retry then tries again.`}
      data-testid={testId}
      data-until={wait.until}
    >
      <Lock aria-hidden="true" className="size-3.5 shrink-0" />
      <span className="min-w-0 truncate">{text}</span>
      <span className="shrink-0 tabular-nums" data-testid={`${testId}-countdown`}>
        {left > 0 ? `· ${left} s left` : '· giving up'}
      </span>
    </p>
  );
}
