import type { PythonImport } from './python-imports.js';
import type { ConfigHints } from './resolution-keys.js';

/** A parsed source file: what it asks for and the repository files that resolves to. */
export interface SourceRecord {
  kind: 'js' | 'py';
  /** JS/TS module requests as written. */
  requests: readonly string[];
  /** Python import statements. */
  pyImports: readonly PythonImport[];
  /** For JS/TS: the file each request resolved to (null: a package, a builtin, nothing). */
  resolved: readonly (string | null)[];
  /** Files of the repository it imports (sorted, without itself). */
  targets: readonly string[];
  /** Why the file has no edges: too large, not text, does not parse. */
  warning?: string;
}

/**
 * The import graph of one commit. Never changed once built: an update builds the next snapshot
 * (sharing what did not change), so a reader never sees half an update.
 */
export interface GraphSnapshot {
  /** The commit this is the graph of. */
  version: string;
  /** Every regular file of the tree, with its size (for existence checks and Python's roots). */
  files: ReadonlyMap<string, number>;
  sources: ReadonlyMap<string, SourceRecord>;
  importedBy: ReadonlyMap<string, ReadonlySet<string>>;
  /** The JSON files (package.json, tsconfigs) as committed, and what resolution needs from them. */
  configs: ReadonlyMap<string, Buffer>;
  hints: ConfigHints;
  /** About the whole graph: truncated, a tsconfig ignored. */
  warnings: readonly string[];
  /** How the snapshot was made, for logs and the bench. */
  stats: { mode: 'cold' | 'incremental'; parsed: number; resolved: number; ms: number };
}

export function buildImportedBy(sources: ReadonlyMap<string, SourceRecord>): Map<string, Set<string>> {
  const importedBy = new Map<string, Set<string>>();
  for (const [file, record] of sources) {
    for (const target of record.targets) {
      const set = importedBy.get(target);
      if (set) set.add(file);
      else importedBy.set(target, new Set([file]));
    }
  }
  return importedBy;
}

/** Files a file imports, and files that import it. */
export function neighboursIn(
  graph: GraphSnapshot,
  file: string,
): { imports: string[]; importedBy: string[] } {
  return {
    imports: [...(graph.sources.get(file)?.targets ?? [])],
    importedBy: [...(graph.importedBy.get(file) ?? [])].sort(),
  };
}

/** Per-file warnings and graph-wide ones, in a stable order. */
export function graphWarnings(graph: GraphSnapshot, limit = 100): string[] {
  const perFile: string[] = [];
  for (const [file, record] of graph.sources) {
    if (record.warning) perFile.push(`${file}: ${record.warning}`);
  }
  perFile.sort();
  const all = [...graph.warnings, ...perFile];
  return all.length > limit ? [...all.slice(0, limit), `… and ${all.length - limit} more`] : all;
}
