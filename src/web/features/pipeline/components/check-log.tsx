import { ChevronDown, ChevronRight, CircleCheck, CircleX, LoaderCircle, TimerOff } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Badge } from '@/web/components/ui/badge';
import { cn } from '@/web/lib/cn';
import { useFollowScroll } from '../hooks/use-follow-scroll';
import type { CheckLogEntry, CheckRun } from '../stores/run-state';

/** Beyond this many characters only the end of a check's output is drawn. */
const MAX_SHOWN = 200_000;

/** A request to show one check (by index): a new `nonce` asks again for the same check. */
export interface CheckFocus {
  index: number;
  nonce: number;
}

interface CheckLogProps {
  checks: readonly CheckRun[];
  /** The run is running: a check without a result is still going (else it was stopped). */
  running: boolean;
  /** The check an agent's run_check line asked to see: opened and scrolled into view. */
  focus?: CheckFocus | null | undefined;
}

type CheckState = 'running' | 'passed' | 'failed' | 'timed-out' | 'stopped';

function stateOf(check: CheckRun, inProgress: boolean): CheckState {
  if (!check.result) return inProgress ? 'running' : 'stopped';
  if (check.result.passed) return 'passed';
  return check.result.timedOut ? 'timed-out' : 'failed';
}

const STATE_LABEL: Record<CheckState, string> = {
  running: 'running…',
  passed: 'passed',
  failed: 'failed',
  'timed-out': 'timed out',
  stopped: 'stopped',
};

const STATE_STYLE: Record<CheckState, string> = {
  running: 'bg-sky-50 text-sky-700 ring-sky-200',
  passed: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  failed: 'bg-red-50 text-red-700 ring-red-200',
  'timed-out': 'bg-red-50 text-red-700 ring-red-200',
  stopped: 'bg-zinc-100 text-zinc-600 ring-zinc-200',
};

function StateIcon({ state }: { state: CheckState }) {
  const className = 'size-3.5';
  if (state === 'running')
    return <LoaderCircle aria-hidden="true" className={cn(className, 'animate-spin')} />;
  if (state === 'passed') return <CircleCheck aria-hidden="true" className={className} />;
  if (state === 'timed-out') return <TimerOff aria-hidden="true" className={className} />;
  return <CircleX aria-hidden="true" className={className} />;
}

/**
 * The repository's checks of the run (the project's check command, after every coding and fixing
 * step), under the agents' output: each check's stdout and stderr as they come, then its result.
 * The whole section folds away; only the latest check is open at first.
 */
export function CheckLog({ checks, running, focus = null }: CheckLogProps) {
  const [open, setOpen] = useState(true);
  useEffect(() => {
    if (focus) setOpen(true);
  }, [focus]);
  const listId = useId();
  const latest = checks.at(-1);
  const latestState = latest ? stateOf(latest, running) : null;
  return (
    <section className="flex flex-col gap-2" data-testid="check-log">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((value) => !value)}
        className="flex w-fit items-center gap-1.5 rounded text-xs font-medium text-zinc-500 hover:text-zinc-800 focus-visible:outline-2 focus-visible:outline-sky-500"
        data-testid="check-log-toggle"
      >
        {open ? (
          <ChevronDown aria-hidden="true" className="size-3.5" />
        ) : (
          <ChevronRight aria-hidden="true" className="size-3.5" />
        )}
        Checks ({checks.length})
        {latestState && <span className="font-normal">· latest {STATE_LABEL[latestState]}</span>}
      </button>
      {open && (
        <ol id={listId} className="flex flex-col gap-2">
          {checks.map((check, index) => (
            <CheckItem
              // Checks are only ever appended: the index is the check's identity in the run.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above.
              key={index}
              check={check}
              number={index + 1}
              state={stateOf(check, running && index === checks.length - 1)}
              latest={index === checks.length - 1}
              focusNonce={focus?.index === index ? focus.nonce : null}
            />
          ))}
        </ol>
      )}
    </section>
  );
}

function CheckItem({
  check,
  number,
  state,
  latest,
  focusNonce,
}: {
  check: CheckRun;
  number: number;
  state: CheckState;
  latest: boolean;
  /** Set when an agent's line asked for this check: it opens and comes into view. */
  focusNonce: number | null;
}) {
  const [picked, setPicked] = useState<boolean | null>(null);
  const expanded = picked ?? latest;
  const outputId = useId();
  const itemRef = useRef<HTMLLIElement>(null);
  const result = check.result;
  useEffect(() => {
    if (focusNonce === null) return;
    setPicked(true);
    itemRef.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [focusNonce]);
  return (
    <li
      ref={itemRef}
      className={cn(
        'flex flex-col gap-1.5 rounded-md border border-zinc-200 p-2',
        focusNonce !== null && 'ring-2 ring-sky-300',
      )}
      data-testid="check-run"
      data-state={state}
      data-focused={focusNonce !== null}
    >
      <div className="flex flex-wrap items-center gap-2 text-xs">
        <button
          type="button"
          aria-expanded={expanded}
          aria-controls={outputId}
          onClick={() => setPicked(!expanded)}
          className="flex items-center gap-1 rounded font-medium text-zinc-700 hover:text-zinc-950 focus-visible:outline-2 focus-visible:outline-sky-500"
        >
          {expanded ? (
            <ChevronDown aria-hidden="true" className="size-3.5" />
          ) : (
            <ChevronRight aria-hidden="true" className="size-3.5" />
          )}
          Check {number}
        </button>
        <Badge className={cn('flex items-center gap-1', STATE_STYLE[state])} data-testid="check-state">
          <StateIcon state={state} />
          {STATE_LABEL[state]}
        </Badge>
        {result && (
          <span className="text-zinc-500 tabular-nums" data-testid="check-result">
            {result.exitCode === null ? 'no exit code' : `exit code ${result.exitCode}`}
            {' · '}
            {(result.durationMs / 1000).toFixed(1)} s{result.timedOut && ' · stopped at the time limit'}
          </span>
        )}
      </div>
      {expanded && <CommandOutput id={outputId} output={check} visible={expanded} label="Output of check" />}
    </li>
  );
}

/** A command's output as it streamed (its result's tail when nothing streamed), and what it says when empty. */
export interface CommandOutputSource {
  entries: readonly CheckLogEntry[];
  result: { tail: string } | null;
}

/**
 * A command's output (a check's, a setup's), stderr apart in colour, following new lines while read
 * at the bottom. Rendered as text, never as markup.
 */
export function CommandOutput({
  id,
  output,
  visible,
  label,
  testId = 'check-output',
}: {
  id: string;
  output: CommandOutputSource;
  visible: boolean;
  label: string;
  testId?: string;
}) {
  const boxRef = useRef<HTMLDivElement>(null);
  const length = useMemo(() => output.entries.reduce((sum, entry) => sum + entry.chunk.length, 0), [output]);
  const { onScroll } = useFollowScroll(boxRef, length, visible);
  const skip = Math.max(0, length - MAX_SHOWN);
  // Streamed output when there is any; a command that printed nothing live may still have a tail.
  const pieces = useMemo(() => {
    if (output.entries.length === 0 && output.result?.tail)
      return [{ key: 'tail', stream: 'stdout' as const, text: output.result.tail }];
    let seen = 0;
    const shown: { key: string; stream: 'stdout' | 'stderr'; text: string }[] = [];
    for (const entry of output.entries) {
      const from = Math.max(0, skip - seen);
      seen += entry.chunk.length;
      if (from >= entry.chunk.length) continue;
      shown.push({ key: String(entry.id), stream: entry.stream, text: entry.chunk.slice(from) });
    }
    return shown;
  }, [output, skip]);
  return (
    <div
      id={id}
      ref={boxRef}
      onScroll={onScroll}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the output scrolls; keyboard readers need to reach it.
      tabIndex={0}
      role="log"
      aria-live="off"
      aria-label={label}
      className="surface-dark max-h-72 overflow-auto rounded-md bg-zinc-950 px-3 py-2.5 focus-visible:outline-2 focus-visible:outline-sky-500"
      data-testid={testId}
    >
      {skip > 0 && (
        <p className="mb-2 font-mono text-[11px] text-zinc-500">
          … earlier output hidden ({Math.round(skip / 1000)}k characters)
        </p>
      )}
      {pieces.length > 0 ? (
        <pre className="font-mono text-xs leading-relaxed break-words whitespace-pre-wrap">
          {pieces.map((piece) => (
            <span
              key={piece.key}
              data-stream={piece.stream}
              className={piece.stream === 'stderr' ? 'text-red-300' : 'text-zinc-100'}
            >
              {piece.text}
            </span>
          ))}
        </pre>
      ) : (
        <p className="font-mono text-xs text-zinc-500">
          {output.result ? '(no output)' : 'Waiting for output…'}
        </p>
      )}
    </div>
  );
}
