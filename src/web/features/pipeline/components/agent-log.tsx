import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { AGENT_TYPES, type AgentType } from '@/contracts/pipeline';
import { AGENT_LABELS } from '@/contracts/run-lifecycle';
import { cn } from '@/web/lib/cn';
import type { AgentLogsState } from '../stores/run-state';
import { LogPane } from './log-pane';

interface AgentLogProps {
  logs: AgentLogsState | null;
  /** The agent at work now: its tab is shown until the reader picks one. */
  activeAgent: AgentType | null;
  /** Shows a check of the run (by index) in the check log: where a run_check line leads. */
  onShowCheck?: ((index: number) => void) | undefined;
}

/**
 * The three agents' live timelines (prose and tool calls) as tabs; the working agent's tab follows
 * the run until one is chosen.
 */
export function AgentLog({ logs, activeAgent, onShowCheck }: AgentLogProps) {
  const [picked, setPicked] = useState<AgentType | null>(null);
  const tabRefs = useRef<Partial<Record<AgentType, HTMLButtonElement | null>>>({});
  const baseId = useId();
  const lastWithOutput = [...AGENT_TYPES].reverse().find((agent) => (logs?.[agent].length ?? 0) > 0);
  const shown = picked ?? activeAgent ?? lastWithOutput ?? 'planner';

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = AGENT_TYPES.indexOf(shown);
    const moves: Record<string, number> = {
      ArrowRight: (index + 1) % AGENT_TYPES.length,
      ArrowLeft: (index - 1 + AGENT_TYPES.length) % AGENT_TYPES.length,
      Home: 0,
      End: AGENT_TYPES.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const agent = AGENT_TYPES[next] ?? 'planner';
    setPicked(agent);
    tabRefs.current[agent]?.focus();
  };

  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <div role="tablist" aria-label="Agent output" className="flex gap-1" onKeyDown={onKeyDown}>
          {AGENT_TYPES.map((agent) => {
            const selected = agent === shown;
            const working = agent === activeAgent;
            return (
              <button
                key={agent}
                ref={(node) => {
                  tabRefs.current[agent] = node;
                }}
                type="button"
                role="tab"
                id={`${baseId}-tab-${agent}`}
                aria-selected={selected}
                aria-controls={`${baseId}-panel-${agent}`}
                tabIndex={selected ? 0 : -1}
                onClick={() => setPicked(agent)}
                data-testid={`agent-log-tab-${agent}`}
                className={cn(
                  'flex h-7 items-center gap-1.5 rounded-md px-2.5 text-xs font-medium transition-colors',
                  'focus-visible:outline-2 focus-visible:outline-sky-500',
                  selected ? 'bg-zinc-900 text-white' : 'text-zinc-600 hover:bg-zinc-100',
                )}
              >
                {AGENT_LABELS[agent]}
                {working && (
                  <span aria-hidden="true" className="size-1.5 animate-pulse rounded-full bg-sky-400" />
                )}
                <span className="sr-only">{working ? ' (working)' : ''}</span>
              </button>
            );
          })}
        </div>
        {picked && activeAgent && picked !== activeAgent && (
          <button
            type="button"
            onClick={() => setPicked(null)}
            className="text-xs text-sky-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-sky-500"
          >
            Follow the working agent
          </button>
        )}
      </div>
      {AGENT_TYPES.map((agent) => (
        <LogPane
          key={agent}
          agent={agent}
          id={`${baseId}-panel-${agent}`}
          labelledBy={`${baseId}-tab-${agent}`}
          entries={logs?.[agent] ?? []}
          visible={agent === shown}
          live={agent === activeAgent}
          onShowCheck={onShowCheck}
          emptyText={
            agent === activeAgent ? `Waiting for the ${agent}…` : `No output from the ${agent} in this run.`
          }
        />
      ))}
    </div>
  );
}
