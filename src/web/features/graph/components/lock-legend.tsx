import { useState } from 'react';
import { type LegendEntry, paler, UNLOCKED_COLOUR } from '../utils/holder-colours';

/** Files listed per holder before "all N files" (one agent may hold hundreds). */
export const LEGEND_FILES_SHOWN = 5;

interface LockLegendProps {
  entries: readonly LegendEntry[];
  /** Selects a file and zooms to it. */
  onPick: (path: string) => void;
}

function Swatch({ colour, faded = false }: { colour: string; faded?: boolean }) {
  return (
    <span
      aria-hidden="true"
      className="inline-block size-2.5 shrink-0 rounded-full"
      style={{ backgroundColor: faded ? paler(colour) : colour }}
    />
  );
}

function HolderFiles({ entry, onPick }: { entry: LegendEntry; onPick: (path: string) => void }) {
  const [all, setAll] = useState(false);
  const files = [
    ...entry.writing.map((path) => ({ path, writing: true })),
    ...entry.reading.map((path) => ({ path, writing: false })),
  ];
  const shown = all ? files : files.slice(0, LEGEND_FILES_SHOWN);
  return (
    <ul className="mt-0.5 ml-4">
      {shown.map(({ path, writing }) => (
        <li key={`${writing}:${path}`}>
          <button
            type="button"
            onClick={() => onPick(path)}
            data-testid="legend-file"
            data-status={writing ? 'WRITING' : 'READING'}
            className="w-full rounded px-1 py-0.5 text-left font-mono break-all text-zinc-700 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500"
          >
            {path}
            {!writing && <span className="ml-1 font-sans text-zinc-400">(reading)</span>}
          </button>
        </li>
      ))}
      {files.length > LEGEND_FILES_SHOWN && (
        <li>
          <button
            type="button"
            onClick={() => setAll(!all)}
            className="px-1 py-0.5 text-sky-700 hover:underline"
            data-testid="legend-more"
          >
            {all ? 'Fewer' : `All ${files.length} files`}
          </button>
        </li>
      )}
    </ul>
  );
}

/**
 * Who holds what: each holder with its colour and the files it writes and reads (each a button that
 * zooms to the file), and what the colours mean. Names are agents' text, shown as text.
 */
export function LockLegend({ entries, onPick }: LockLegendProps) {
  return (
    <section aria-label="Lock holders" data-testid="lock-legend" className="space-y-2 text-xs">
      <h2 className="font-semibold tracking-wide text-zinc-500 uppercase">Locks</h2>
      {entries.length === 0 ? (
        <p className="text-zinc-500">No file is locked. Locks appear here as agents take them.</p>
      ) : (
        <ul className="space-y-2">
          {entries.map((entry) => (
            <li key={entry.agent.id} data-testid="legend-holder" data-agent-id={entry.agent.id}>
              <p className="flex items-center gap-1.5">
                <Swatch colour={entry.colour} />
                <span
                  className="min-w-0 font-medium break-all text-zinc-900"
                  data-testid="legend-holder-name"
                >
                  {entry.agent.name}
                </span>
                <span className="ml-auto shrink-0 text-zinc-400">
                  {entry.writing.length > 0 && `${entry.writing.length} writing`}
                  {entry.writing.length > 0 && entry.reading.length > 0 && ' · '}
                  {entry.reading.length > 0 && `${entry.reading.length} reading`}
                </span>
              </p>
              <HolderFiles entry={entry} onPick={onPick} />
            </li>
          ))}
        </ul>
      )}
      <p className="flex flex-wrap items-center gap-x-3 gap-y-1 border-t border-zinc-200 pt-2 text-zinc-500">
        <span className="flex items-center gap-1">
          <Swatch colour="#52525b" /> writing
        </span>
        <span className="flex items-center gap-1">
          <Swatch colour="#52525b" faded /> reading
        </span>
        <span className="flex items-center gap-1">
          <Swatch colour={UNLOCKED_COLOUR} /> not locked
        </span>
      </p>
    </section>
  );
}
