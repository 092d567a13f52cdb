import { useEffect, useState } from 'react';
import { Spinner } from '@/web/components/ui/spinner';

/** "Retrying in 2 s…" while a retry's backoff runs. */
export function RetryCountdown({ retryAt }: { retryAt: number }) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.ceil((retryAt - now) / 1000);
  if (seconds <= 0) return null;
  return (
    <p
      className="flex items-center gap-1.5 text-xs text-amber-800"
      role="status"
      data-testid="retry-countdown"
    >
      <Spinner className="size-3.5" />
      Retrying in {seconds} s…
    </p>
  );
}
