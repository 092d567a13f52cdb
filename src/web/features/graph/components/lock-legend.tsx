import { useState } from 'react';
import { useGraphPalette } from '../hooks/use-graph-palette';
import { type LegendEntry, paler } from '../utils/holder-colours';

/** Files listed per holder before "all N files" (one agent may hold hundreds). */
export const LEGEND_FILES_SHOWN = 5;

interface LockLegendProps {
  entries: readonly LegendEntry[];
  /** Selects a file and zooms to it. */
  onPick: (path: string) => void;
}

/** What a swatch stands for; a test compares each with the colour the canvas draws for it. */
type SwatchMeaning = 'holder' | 'writing' | 'reading' | 'unlocked' | 'dimmed';

/** A colour exactly as the canvas draws it (ringed, so that a faint one shows on the panel). */
function Swatch({ colour, meaning }: { colour: string; meaning: SwatchMeaning }) {
  return (
    <span
      aria-hidden="true"
      data-testid="legend-swatch"
      data-meaning={meaning}
      className="inline-block size-2.5 shrink-0 rounded-full ring-1 ring-zinc-300"
      style={{ backgroundColor: colour }}
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
 * zooms to the file), and what the colours mean — every swatch the colour the canvas draws for it
 * in the theme in effect (`utils/graph-palette.ts`). Names are agents' text, shown as text.
 */
export function LockLegend({ entries, onPick }: LockLegendProps) {
  const palette = useGraphPalette();
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
                <Swatch
                  colour={entry.writing.length > 0 ? entry.colour : paler(entry.colour)}
                  meaning="holder"
                />
                <span
                  className="min-w-0 font-medium break-all text-zinc-900"
                  data-testid="legend-holder-name"
                >
                  {entry.agent.name}
                </span>
                <span className="ml-auto flex shrink-0 items-center gap-1 text-zinc-400">
                  {entry.writing.length > 0 && (
                    <>
                      <Swatch colour={entry.colour} meaning="writing" />
                      {entry.writing.length} writing
                    </>
                  )}
                  {entry.writing.length > 0 && entry.reading.length > 0 && ' · '}
                  {entry.reading.length > 0 && (
                    <>
                      <Swatch colour={paler(entry.colour)} meaning="reading" />
                      {entry.reading.length} reading
                    </>
                  )}
                </span>
              </p>
              <HolderFiles entry={entry} onPick={onPick} />
            </li>
          ))}
        </ul>
      )}
      <div className="space-y-1 border-t border-zinc-200 pt-2 text-zinc-500">
        <p className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <span className="flex items-center gap-1">
            <Swatch colour={palette.unlocked} meaning="unlocked" /> not locked
          </span>
          <span className="flex items-center gap-1">
            <Swatch colour={palette.dimmed} meaning="dimmed" /> faded: not linked to the selected file
          </span>
        </p>
        <p>
          A locked file takes its holder’s colour: solid while written, paler while only read. A file someone
          writes shows the writer’s colour, even while others read it; one only read, its latest reader’s.
        </p>
        <p>
          Files show their names; zoomed out, only the most linked keep theirs. Hover over a file for its full
          path.
        </p>
      </div>
    </section>
  );
}
