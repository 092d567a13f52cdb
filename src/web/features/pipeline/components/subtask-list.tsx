import { Check } from 'lucide-react';
import type { Subtask } from '@/contracts/pipeline';
import { cn } from '@/web/lib/cn';
import type { SubtaskProgress } from '../stores/run-state';

interface SubtaskListProps {
  subtasks: readonly Subtask[];
  /** The subtask being coded now. */
  current: SubtaskProgress | null;
  /** Every subtask has been coded (the run is past coding). */
  allDone: boolean;
}

/** The planner's subtasks, with the coder's progress through them. */
export function SubtaskList({ subtasks, current, allDone }: SubtaskListProps) {
  return (
    <ol className="flex flex-col gap-1.5" data-testid="pipeline-subtasks">
      {subtasks.map((subtask, index) => {
        const done = allDone || (current !== null && index + 1 < current.index);
        const active = !allDone && current?.index === index + 1;
        return (
          <li
            key={subtask.id}
            className="flex items-start gap-2 text-sm text-zinc-800"
            aria-current={active ? 'step' : undefined}
          >
            <span
              className={cn(
                'mt-0.5 flex size-4.5 shrink-0 items-center justify-center rounded-full text-[10px] font-semibold tabular-nums',
                done && 'bg-emerald-500 text-white',
                active && 'bg-sky-500 text-white',
                !done && !active && 'bg-zinc-200 text-zinc-600',
              )}
            >
              {done ? <Check aria-hidden="true" className="size-3" strokeWidth={3} /> : index + 1}
            </span>
            <div className="min-w-0">
              <p className={cn('break-words', active && 'font-medium')}>{subtask.title}</p>
              {subtask.files && subtask.files.length > 0 && (
                <p className="truncate font-mono text-[11px] text-zinc-500">{subtask.files.join(', ')}</p>
              )}
            </div>
          </li>
        );
      })}
    </ol>
  );
}
