import { type KeyboardEvent, useRef } from 'react';
import { STATUS_LABELS, TASK_STATUSES, type TaskStatus } from '@/contracts/tasks';
import { cn } from '@/web/lib/cn';
import { statusDot } from './task-badges';

/** The id of a column's section, which its tab controls. */
export const columnPanelId = (status: TaskStatus) => `board-column-${status}`;

interface ColumnTabsProps {
  counts: Record<TaskStatus, number>;
  selected: TaskStatus;
  onSelect: (status: TaskStatus) => void;
  className?: string;
}

const STEP: Record<string, (index: number) => number> = {
  ArrowRight: (index) => (index + 1) % TASK_STATUSES.length,
  ArrowLeft: (index) => (index - 1 + TASK_STATUSES.length) % TASK_STATUSES.length,
  Home: () => 0,
  End: () => TASK_STATUSES.length - 1,
};

/**
 * The board's columns as tabs, each with its task count, for a screen that shows one column at a
 * time (a phone). The arrow keys, Home and End move between them.
 */
export function ColumnTabs({ counts, selected, onSelect, className }: ColumnTabsProps) {
  const tabs = useRef(new Map<TaskStatus, HTMLButtonElement>());

  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>) => {
    const step = STEP[event.key];
    if (!step) return;
    event.preventDefault();
    const next = TASK_STATUSES[step(TASK_STATUSES.indexOf(selected))] ?? selected;
    onSelect(next);
    tabs.current.get(next)?.focus();
  };

  return (
    <div
      role="tablist"
      aria-label="Columns"
      className={cn(
        'mx-4 mb-3 grid grid-cols-5 gap-1 rounded-lg bg-zinc-100 p-1 ring-1 ring-zinc-200/70',
        className,
      )}
      data-testid="column-tabs"
    >
      {TASK_STATUSES.map((status) => {
        const active = status === selected;
        const count = counts[status];
        return (
          <button
            key={status}
            ref={(node) => {
              if (node) tabs.current.set(status, node);
              else tabs.current.delete(status);
            }}
            type="button"
            role="tab"
            id={`column-tab-${status}`}
            aria-selected={active}
            aria-controls={columnPanelId(status)}
            tabIndex={active ? 0 : -1}
            onClick={() => onSelect(status)}
            onKeyDown={onKeyDown}
            data-testid={`column-tab-${status}`}
            className={cn(
              'flex min-w-0 flex-col items-center rounded-md px-1 py-1 transition-colors',
              'focus-visible:outline-2 focus-visible:outline-sky-500',
              active ? 'bg-white text-zinc-900 shadow-xs' : 'text-zinc-600 hover:text-zinc-900',
            )}
          >
            <span className="max-w-full truncate text-[11px] font-medium">{STATUS_LABELS[status]}</span>{' '}
            <span className="flex items-center gap-1 text-sm font-semibold tabular-nums">
              <span aria-hidden="true" className={cn('size-1.5 rounded-full', statusDot[status])} />
              <span data-testid={`column-tab-${status}-count`}>{count}</span>
            </span>{' '}
            <span className="sr-only">{count === 1 ? 'task' : 'tasks'}</span>
          </button>
        );
      })}
    </div>
  );
}
