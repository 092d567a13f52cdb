import { Gauge } from 'lucide-react';
import { memo } from 'react';
import type { UsageEntry } from '../../stores/run-state';
import { stepUsageParts } from '../../utils/usage-labels';

/** The end of an agent step: what it spent (tool calls, turns, tokens with the cached share, cost, time). */
export const UsageLine = memo(function UsageLine({ entry }: { entry: UsageEntry }) {
  return (
    <p className="flex items-start gap-2 text-[11px] text-zinc-400" data-testid="step-usage">
      <Gauge aria-hidden="true" className="mt-px size-3.5 shrink-0" />
      <span>Step done · {stepUsageParts(entry.call).join(' · ')}</span>
    </p>
  );
});
