import { CircleCheck, CircleX } from 'lucide-react';
import type { FindingSeverity, ReviewResult } from '@/contracts/pipeline';
import { Badge } from '@/web/components/ui/badge';
import { cn } from '@/web/lib/cn';

const severityStyle: Record<FindingSeverity, string> = {
  error: 'bg-red-50 text-red-700 ring-red-200',
  warning: 'bg-amber-50 text-amber-800 ring-amber-200',
  info: 'bg-sky-50 text-sky-700 ring-sky-200',
};

const order: Record<FindingSeverity, number> = { error: 0, warning: 1, info: 2 };

/** The reviewer's verdict, score and findings, most severe first. */
export function ReviewFindings({ review }: { review: ReviewResult }) {
  const findings = [...review.findings].sort((a, b) => order[a.severity] - order[b.severity]);
  return (
    <div className="flex flex-col gap-2" data-testid="review-findings">
      <p
        className={cn(
          'flex items-center gap-1.5 text-sm font-medium',
          review.passed ? 'text-emerald-700' : 'text-red-700',
        )}
      >
        {review.passed ? (
          <CircleCheck aria-hidden="true" className="size-4" />
        ) : (
          <CircleX aria-hidden="true" className="size-4" />
        )}
        {review.passed ? 'Review passed' : 'Review did not pass'}
        <span className="font-normal text-zinc-500 tabular-nums">· score {review.score}/100</span>
      </p>
      {findings.length === 0 ? (
        <p className="text-sm text-zinc-500">No findings.</p>
      ) : (
        <ul className="flex flex-col divide-y divide-zinc-100 rounded-md border border-zinc-200">
          {findings.map((finding, index) => (
            <li
              // Findings have no id; their order is stable for one review.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above.
              key={index}
              className="flex flex-col gap-1 px-3 py-2 text-sm sm:flex-row sm:items-start sm:gap-3"
              data-severity={finding.severity}
            >
              <Badge className={cn('w-fit shrink-0 capitalize', severityStyle[finding.severity])}>
                {finding.severity}
              </Badge>
              <div className="min-w-0">
                <p className="font-mono text-[11px] break-all text-zinc-500">
                  {finding.file}
                  {finding.line > 0 && `:${finding.line}`}
                </p>
                <p className="break-words whitespace-pre-wrap text-zinc-800">{finding.message}</p>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
