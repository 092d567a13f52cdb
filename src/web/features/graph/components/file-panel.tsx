import { Crosshair, X } from 'lucide-react';
import { Badge } from '@/web/components/ui/badge';
import { Button } from '@/web/components/ui/button';
import { paler } from '../utils/holder-colours';
import { type HeldLock, holdersInOrder } from '../utils/lock-state';

export interface FilePanelProps {
  path: string;
  /** Everyone holding the file (any order). */
  holders: readonly HeldLock[] | undefined;
  imports: readonly string[];
  importedBy: readonly string[];
  /** Holder id → colour, as the graph and the legend show it. */
  colourOf: (agentId: string) => string | undefined;
  onSelect: (path: string) => void;
  onZoom: (path: string) => void;
  onClose: () => void;
}

const sinceFormat = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

function LockLine({ held, colour }: { held: HeldLock; colour: string | undefined }) {
  const writing = held.status === 'WRITING';
  return (
    <li className="space-y-1 rounded-md border border-zinc-200 bg-white p-2" data-testid="file-lock">
      <p className="flex flex-wrap items-center gap-1.5 text-xs">
        <span
          aria-hidden="true"
          className="size-2.5 shrink-0 rounded-full"
          // A reader's colour as the graph and the legend draw it.
          style={{ backgroundColor: colour && !writing ? paler(colour) : colour }}
        />
        <Badge
          className={writing ? 'bg-violet-50 text-violet-800 ring-violet-200' : undefined}
          data-testid="file-lock-status"
        >
          {held.status}
        </Badge>
        <span className="font-medium break-all text-zinc-900" data-testid="file-lock-agent">
          {held.agent.name}
        </span>
      </p>
      <p className="text-xs break-words text-zinc-700 italic" data-testid="file-lock-message">
        “{held.message}”
      </p>
      <p className="text-[11px] text-zinc-400">
        since <time dateTime={new Date(held.since).toISOString()}>{sinceFormat.format(held.since)}</time>
      </p>
    </li>
  );
}

function FileList({
  title,
  files,
  testId,
  onSelect,
}: {
  title: string;
  files: readonly string[];
  testId: string;
  onSelect: (path: string) => void;
}) {
  return (
    <section aria-label={title} data-testid={testId}>
      <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">
        {title} <span className="font-normal text-zinc-400">({files.length})</span>
      </h3>
      {files.length === 0 ? (
        <p className="mt-1 text-xs text-zinc-400">None</p>
      ) : (
        <ul className="mt-1 space-y-0.5">
          {files.map((file) => (
            <li key={file}>
              <button
                type="button"
                onClick={() => onSelect(file)}
                className="w-full rounded px-1 py-0.5 text-left font-mono text-xs break-all text-sky-700 hover:bg-sky-50 focus-visible:outline-2 focus-visible:outline-sky-500"
              >
                {file}
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * The side panel of the selected file: its path, who holds it and why (status, agent, its message
 * and since when), and the files it imports and that import it. Agents' names and messages are text.
 */
export function FilePanel({
  path,
  holders,
  imports,
  importedBy,
  colourOf,
  onSelect,
  onZoom,
  onClose,
}: FilePanelProps) {
  const locks = holdersInOrder(holders);
  return (
    <aside
      aria-label="Selected file"
      data-testid="file-panel"
      className="flex h-full min-h-0 w-80 shrink-0 flex-col border-l border-zinc-200 bg-zinc-50"
    >
      <div className="flex items-start gap-1 border-b border-zinc-200 p-3">
        <h2
          className="min-w-0 flex-1 font-mono text-sm break-all text-zinc-900"
          data-testid="file-panel-path"
        >
          {path}
        </h2>
        <Button
          size="icon-sm"
          variant="ghost"
          aria-label="Zoom to this file"
          title="Zoom to this file"
          onClick={() => onZoom(path)}
        >
          <Crosshair aria-hidden="true" className="size-4" />
        </Button>
        <Button size="icon-sm" variant="ghost" aria-label="Close" title="Close" onClick={onClose}>
          <X aria-hidden="true" className="size-4" />
        </Button>
      </div>
      <div className="min-h-0 flex-1 space-y-4 overflow-y-auto p-3">
        <section aria-label="Locks">
          <h3 className="text-xs font-semibold tracking-wide text-zinc-500 uppercase">Locks</h3>
          {locks.length === 0 ? (
            <p className="mt-1 text-xs text-zinc-500" data-testid="file-unlocked">
              Nobody holds this file.
            </p>
          ) : (
            <ul className="mt-1 space-y-1.5">
              {locks.map((held) => (
                <LockLine key={held.agent.id} held={held} colour={colourOf(held.agent.id)} />
              ))}
            </ul>
          )}
        </section>
        <FileList title="Imports" files={imports} testId="file-imports" onSelect={onSelect} />
        <FileList title="Imported by" files={importedBy} testId="file-importers" onSelect={onSelect} />
      </div>
    </aside>
  );
}
