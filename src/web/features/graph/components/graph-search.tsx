import { Search } from 'lucide-react';
import { useId, useMemo, useState } from 'react';
import { Input } from '@/web/components/ui/input';
import { searchFiles } from '../utils/graph-data';

interface GraphSearchProps {
  files: readonly string[];
  /** Selects the file and zooms to it. */
  onPick: (path: string) => void;
}

/** Finds a file by (part of) its path: Enter or a click on a suggestion zooms to it. */
export function GraphSearch({ files, onPick }: GraphSearchProps) {
  const [query, setQuery] = useState('');
  const [open, setOpen] = useState(false);
  const listId = useId();
  const matches = useMemo(() => searchFiles(files, query), [files, query]);

  const pick = (path: string) => {
    onPick(path);
    setQuery(path);
    setOpen(false);
  };

  return (
    <form
      aria-label="Find a file"
      className="relative w-full max-w-sm"
      onSubmit={(event) => {
        event.preventDefault();
        const best = matches[0];
        if (best) pick(best);
      }}
    >
      <Search aria-hidden="true" className="pointer-events-none absolute top-2 left-2 size-4 text-zinc-400" />
      <Input
        type="search"
        value={query}
        onChange={(event) => {
          setQuery(event.target.value);
          setOpen(true);
        }}
        onKeyDown={(event) => {
          if (event.key === 'Escape') setOpen(false);
        }}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        placeholder="Find a file…"
        aria-label="Find a file"
        aria-controls={listId}
        className="pl-8"
        data-testid="graph-search"
      />
      {open && query.trim() !== '' && (
        <ul
          id={listId}
          aria-label="Matching files"
          className="absolute z-10 mt-1 max-h-72 w-full overflow-y-auto rounded-md border border-zinc-200 bg-white py-1 shadow-lg"
        >
          {matches.length === 0 ? (
            <li className="px-2.5 py-1.5 text-xs text-zinc-500">No file matches.</li>
          ) : (
            matches.map((path) => (
              <li key={path}>
                <button
                  type="button"
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => pick(path)}
                  className="w-full px-2.5 py-1 text-left font-mono text-xs break-all text-zinc-800 hover:bg-zinc-100"
                  data-testid="graph-search-match"
                >
                  {path}
                </button>
              </li>
            ))
          )}
        </ul>
      )}
    </form>
  );
}
