import { ArrowDownToLine, RotateCw } from 'lucide-react';
import { memo, useRef } from 'react';
import { Button } from '@/web/components/ui/button';
import { cn } from '@/web/lib/cn';
import { useFollowScroll } from '../hooks/use-follow-scroll';
import type { ServiceOutput } from '../hooks/use-service-output';
import type { OutputLine } from '../utils/output-lines';
import { AnsiText } from './ansi-text';

const LogLine = memo(function LogLine({ line }: { line: OutputLine }) {
  return (
    <div
      data-stream={line.stream}
      className={cn(
        'min-h-[1lh] break-words whitespace-pre-wrap',
        line.stream === 'stderr' && 'text-red-300',
      )}
    >
      <AnsiText text={line.text} />
    </div>
  );
});

function exitText(exitCode: number | null): string {
  return exitCode === null ? 'ended by a signal' : `exited with code ${exitCode}`;
}

/**
 * A service's output: stdout and stderr lines with their ANSI colours, following new lines while
 * the reader is at the bottom (scrolling up pauses that), then how the process ended.
 */
export function ServiceLog({ output, label }: { output: ServiceOutput; label: string }) {
  const boxRef = useRef<HTMLDivElement>(null);
  const { following, onScroll, resume } = useFollowScroll(boxRef, output.lines);
  const { lines, dropped, exitCode, state, error } = output;

  return (
    <div className="relative" data-testid="service-log" data-state={state} data-following={following}>
      <div
        ref={boxRef}
        onScroll={onScroll}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the log scrolls; keyboard readers need to reach it.
        tabIndex={0}
        role="log"
        aria-live="off"
        aria-label={`${label} output`}
        className="surface-dark h-64 overflow-auto rounded-md bg-zinc-950 px-3 py-2.5 font-mono text-xs leading-relaxed text-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500"
      >
        {dropped > 0 && (
          <p className="mb-1 text-[11px] text-zinc-500" data-testid="service-log-dropped">
            … {dropped.toLocaleString()} earlier {dropped === 1 ? 'line' : 'lines'} not shown
          </p>
        )}
        <div data-testid="service-log-lines">
          {lines.map((line) => (
            <LogLine key={line.id} line={line} />
          ))}
        </div>
        {lines.length === 0 && state !== 'connecting' && <p className="text-zinc-500">No output yet.</p>}
        {exitCode !== undefined && (
          <p
            className={cn('mt-1 text-[11px]', exitCode === 0 ? 'text-zinc-400' : 'text-red-300')}
            data-testid="service-log-exit"
          >
            [process {exitText(exitCode)}]
          </p>
        )}
      </div>
      {state === 'failed' && (
        <div className="mt-1.5 flex items-center gap-2 text-xs text-red-700" role="alert">
          <span className="min-w-0 flex-1">{error ?? 'The log stream failed.'}</span>
          <Button size="sm" onClick={output.reconnect} data-testid="service-log-reconnect">
            <RotateCw aria-hidden="true" className="size-3" />
            Reconnect
          </Button>
        </div>
      )}
      {!following && (
        <Button
          size="sm"
          variant="primary"
          onClick={resume}
          className={cn(
            'absolute right-3 bg-sky-600 shadow-lg hover:bg-sky-500',
            state === 'failed' ? 'bottom-12' : 'bottom-3',
          )}
          data-testid="service-log-resume"
        >
          <ArrowDownToLine aria-hidden="true" className="size-3.5" />
          Follow new lines
        </Button>
      )}
    </div>
  );
}
