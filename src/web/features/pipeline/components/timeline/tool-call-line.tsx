import {
  ArrowDownToLine,
  Check,
  ChevronDown,
  ChevronRight,
  CircleDashed,
  FilePen,
  FileText,
  Globe,
  ListTodo,
  LoaderCircle,
  type LucideIcon,
  Plug,
  Search,
  SquareTerminal,
  Wrench,
  X,
} from 'lucide-react';
import { memo, useId, useState } from 'react';
import { cn } from '@/web/lib/cn';
import type { ToolEntry } from '../../stores/run-state';
import {
  ENGINE_NAMES,
  type EngineToolKind,
  engineCallTitle,
  engineToolKind,
} from '../../utils/engine-tool-labels';
import { pendingLabel } from '../../utils/tool-labels';
import { PatchView } from './patch-view';

/** pending: the call runs; unfinished: the agent stopped before its result came. */
export type ToolCallState = 'pending' | 'ok' | 'failed' | 'unfinished';

const STATE_TEXT: Record<ToolCallState, string> = {
  pending: 'running',
  ok: 'done',
  failed: 'failed',
  unfinished: 'no result',
};

function StateIcon({ state }: { state: ToolCallState }) {
  const className = 'mt-0.5 size-3.5 shrink-0';
  if (state === 'pending')
    return <LoaderCircle aria-hidden="true" className={cn(className, 'animate-spin text-sky-400')} />;
  if (state === 'ok') return <Check aria-hidden="true" className={cn(className, 'text-emerald-400')} />;
  if (state === 'failed') return <X aria-hidden="true" className={cn(className, 'text-red-400')} />;
  return <CircleDashed aria-hidden="true" className={cn(className, 'text-zinc-500')} />;
}

const KIND_ICONS: Record<EngineToolKind, LucideIcon> = {
  terminal: SquareTerminal,
  edit: FilePen,
  file: FileText,
  search: Search,
  list: ListTodo,
  web: Globe,
  plug: Plug,
  other: Wrench,
};

const linkClass =
  'flex shrink-0 items-center gap-1 rounded px-1 text-[11px] text-sky-300 hover:bg-zinc-800 hover:text-sky-200 focus-visible:outline-2 focus-visible:outline-sky-500';

interface ToolCallLineProps {
  entry: ToolEntry;
  /** The agent is at work: a call without its result is still running. */
  live: boolean;
  /** Shows the run's check of this index in the check log. */
  onShowCheck?: ((index: number) => void) | undefined;
  /** Name the external agent that made the call (the first of its calls in a step). */
  showEngine?: boolean;
}

/**
 * One tool call: what it is doing while it runs ("Reading src/board.ts…"), then its result's line
 * with a mark; a change can be opened as its diff, a check run leads to its output in the check
 * log. All of it is the agent's or the server's text, drawn as text.
 */
export const ToolCallLine = memo(function ToolCallLine({
  entry,
  live,
  onShowCheck,
  showEngine = false,
}: ToolCallLineProps) {
  const [diffOpen, setDiffOpen] = useState(false);
  const diffId = useId();
  const { result } = entry;
  const state: ToolCallState = result ? (result.ok ? 'ok' : 'failed') : live ? 'pending' : 'unfinished';
  const engine = entry.engine;
  const title = engine ? engineCallTitle(entry.tool, entry.input) : pendingLabel(entry.tool, entry.input);
  const text = result && (!engine || String(result.summary ?? '').trim()) ? String(result.summary) : title;
  const KindIcon = engine ? KIND_ICONS[engineToolKind(entry.tool)] : null;
  const change = result?.change;
  const patch = change?.patch || null;
  const check = result?.check;
  const finishSummary =
    entry.tool === 'finish' && typeof entry.input.summary === 'string' ? entry.input.summary.trim() : '';
  return (
    <div
      data-testid="tool-call"
      data-tool={entry.tool}
      data-state={state}
      data-call-id={entry.callId}
      data-engine={engine}
    >
      <div className="flex flex-wrap items-start gap-x-2 gap-y-0.5">
        <StateIcon state={state} />
        {KindIcon && (
          <KindIcon
            aria-hidden="true"
            className="mt-0.5 -ml-1 size-3.5 shrink-0 text-zinc-500"
            data-testid="tool-call-icon"
            data-kind={engineToolKind(entry.tool)}
          />
        )}
        <span
          className={cn(
            'min-w-0 flex-1 break-words',
            state === 'failed' ? 'text-red-300/80' : state === 'pending' ? 'text-zinc-300' : 'text-zinc-200',
          )}
          data-testid="tool-call-text"
        >
          {text}
          <span className="sr-only"> ({STATE_TEXT[state]})</span>
        </span>
        {engine && showEngine && (
          <span
            className="shrink-0 rounded bg-zinc-800 px-1 text-[10px] leading-4 text-zinc-400"
            data-testid="tool-call-engine"
          >
            {ENGINE_NAMES[engine]}
          </span>
        )}
        {change && (
          <span className="shrink-0 text-[11px] tabular-nums" data-testid="tool-call-counts">
            <span className="text-emerald-400">+{change.added}</span>{' '}
            <span className="text-red-400">−{change.removed}</span>
          </span>
        )}
        {check && (
          <span
            className={cn(
              'shrink-0 rounded px-1 text-[11px]',
              check.passed ? 'bg-emerald-950 text-emerald-300' : 'bg-red-950 text-red-300',
            )}
            data-testid="tool-call-check"
          >
            {check.passed ? 'passed' : check.exitCode === null ? 'failed' : `failed, exit ${check.exitCode}`}
          </span>
        )}
        {patch && (
          <button
            type="button"
            aria-expanded={diffOpen}
            aria-controls={diffId}
            onClick={() => setDiffOpen((open) => !open)}
            className={linkClass}
            data-testid="tool-call-diff-toggle"
          >
            {diffOpen ? (
              <ChevronDown aria-hidden="true" className="size-3" />
            ) : (
              <ChevronRight aria-hidden="true" className="size-3" />
            )}
            {diffOpen ? 'Hide diff' : 'Show diff'}
          </button>
        )}
        {entry.checkIndex !== null && onShowCheck && (
          <button
            type="button"
            onClick={() => onShowCheck(entry.checkIndex ?? 0)}
            className={linkClass}
            data-testid="tool-call-show-check"
          >
            <ArrowDownToLine aria-hidden="true" className="size-3" />
            Check {entry.checkIndex + 1} output
          </button>
        )}
      </div>
      {finishSummary && (
        <p
          className="mt-0.5 ml-5 break-words whitespace-pre-wrap text-zinc-400"
          data-testid="tool-call-finish"
        >
          {finishSummary}
        </p>
      )}
      {patch && diffOpen && <PatchView id={diffId} patch={patch} />}
    </div>
  );
});
