import { ArrowDownToLine } from 'lucide-react';
import { useMemo, useRef } from 'react';
import type { AgentType } from '@/contracts/pipeline';
import { Button } from '@/web/components/ui/button';
import { useFollowScroll } from '../hooks/use-follow-scroll';
import type { LogEntry } from '../stores/run-state';

/** Beyond this many characters only the end of a log is drawn; long runs stay responsive. */
const MAX_SHOWN = 200_000;

interface LogPaneProps {
  agent: AgentType;
  entries: readonly LogEntry[];
  visible: boolean;
  emptyText: string;
  id: string;
  labelledBy: string;
}

/** One agent's output: plain text in a monospace box that follows new lines while read at the bottom. */
export function LogPane({ agent, entries, visible, emptyText, id, labelledBy }: LogPaneProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const text = useMemo(() => entries.map((entry) => entry.chunk).join(''), [entries]);
  const shown = text.length > MAX_SHOWN ? text.slice(-MAX_SHOWN) : text;
  const { following, onScroll, jumpToLatest } = useFollowScroll(boxRef, text.length, visible);

  return (
    <div
      id={id}
      role="tabpanel"
      aria-labelledby={labelledBy}
      hidden={!visible}
      className="relative"
      data-testid={`agent-log-${agent}`}
      data-following={following}
    >
      <div
        ref={boxRef}
        onScroll={onScroll}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls; keyboard readers need to reach it.
        tabIndex={0}
        role="log"
        // Announcing every chunk would drown a screen reader; the tab says who is working.
        aria-live="off"
        aria-label={`${agent} output`}
        className="h-72 overflow-auto rounded-md bg-zinc-950 px-3 py-2.5 focus-visible:outline-2 focus-visible:outline-sky-500 sm:h-80"
      >
        {text.length > MAX_SHOWN && (
          <p className="mb-2 font-mono text-[11px] text-zinc-500">
            … earlier output hidden ({Math.round((text.length - MAX_SHOWN) / 1000)}k characters)
          </p>
        )}
        {shown ? (
          <pre className="font-mono text-xs leading-relaxed break-words whitespace-pre-wrap text-zinc-100">
            {shown}
          </pre>
        ) : (
          <p className="font-mono text-xs text-zinc-500">{emptyText}</p>
        )}
      </div>
      {!following && (
        <Button
          size="sm"
          variant="primary"
          onClick={jumpToLatest}
          className="absolute right-3 bottom-3 bg-sky-600 shadow-lg hover:bg-sky-500"
          data-testid="log-jump-latest"
        >
          <ArrowDownToLine aria-hidden="true" className="size-3.5" />
          Jump to latest
        </Button>
      )}
    </div>
  );
}
