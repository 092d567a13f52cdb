import { ArrowDownToLine } from 'lucide-react';
import { useMemo, useRef } from 'react';
import type { AgentType } from '@/contracts/pipeline';
import { Button } from '@/web/components/ui/button';
import { useFollowScroll } from '../hooks/use-follow-scroll';
import type { AgentLogEntry } from '../stores/run-state';
import { buildTimeline, type TimelineItem } from '../utils/timeline';
import { ProseBlock } from './timeline/prose-block';
import { ToolCallLine } from './timeline/tool-call-line';
import { UsageLine } from './timeline/usage-line';

interface LogPaneProps {
  agent: AgentType;
  entries: readonly AgentLogEntry[];
  visible: boolean;
  /** The agent is at work: its open tool calls are running and its answer may still be written. */
  live: boolean;
  emptyText: string;
  id: string;
  labelledBy: string;
  /** Shows a check of the run (by index) in the check log. */
  onShowCheck?: ((index: number) => void) | undefined;
}

/**
 * The tool calls that name the external agent (Claude Code, Codex) that made them: the first of
 * each step (a step ends with its usage line), and any after a call by another engine or AutoCoder.
 */
function engineNamedKeys(items: readonly TimelineItem[]): Set<string> {
  const keys = new Set<string>();
  let previous: string | undefined;
  for (const item of items) {
    if (item.kind === 'usage') previous = undefined;
    if (item.kind !== 'tool') continue;
    const engine = item.entry.engine;
    if (engine && engine !== previous) keys.add(item.key);
    previous = engine;
  }
  return keys;
}

/**
 * One agent's timeline: its prose and one line per tool call, in the order the stream gave them,
 * in a dark box that follows new lines while read at the bottom. Only the end of a long log is drawn.
 */
export function LogPane({
  agent,
  entries,
  visible,
  live,
  emptyText,
  id,
  labelledBy,
  onShowCheck,
}: LogPaneProps) {
  const boxRef = useRef<HTMLDivElement>(null);
  const timeline = useMemo(() => buildTimeline(entries), [entries]);
  const engineNamed = useMemo(() => engineNamedKeys(timeline.items), [timeline.items]);
  const { following, onScroll, jumpToLatest } = useFollowScroll(boxRef, timeline.size, visible);
  const last = timeline.items.length - 1;

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
        className="surface-dark h-72 overflow-auto rounded-md bg-zinc-950 px-3 py-2.5 font-mono text-xs leading-relaxed focus-visible:outline-2 focus-visible:outline-sky-500 sm:h-80"
      >
        {timeline.truncated && (
          <p className="mb-2 text-[11px] text-zinc-500" data-testid="agent-log-hidden">
            … earlier output hidden
            {timeline.hiddenEntries > 0
              ? ` (${timeline.hiddenEntries.toLocaleString()} earlier entries)`
              : ''}
          </p>
        )}
        {timeline.items.length > 0 ? (
          <ol className="flex flex-col gap-1.5" data-testid="agent-timeline">
            {timeline.items.map((item, index) => (
              <li key={item.key} data-kind={item.kind}>
                {item.kind === 'prose' ? (
                  <ProseBlock text={item.text} live={live && index === last} />
                ) : item.kind === 'tool' ? (
                  <ToolCallLine
                    entry={item.entry}
                    live={live}
                    onShowCheck={onShowCheck}
                    showEngine={engineNamed.has(item.key)}
                  />
                ) : (
                  <UsageLine entry={item.entry} />
                )}
              </li>
            ))}
          </ol>
        ) : (
          <p className="text-zinc-500">{emptyText}</p>
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
