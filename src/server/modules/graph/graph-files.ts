// Parsing and resolving the source files of one build (see graph-build.ts).

import { yieldTurn } from '@/server/lib/yield-turn.js';
import type { BuildContext } from './build-context.js';
import type { TreeFile } from './git-source.js';
import type { SourceRecord } from './graph-snapshot.js';
import { extractJsImports, isJsFile } from './js-imports.js';
import { extractPythonImports } from './python-imports.js';
import { pythonRoots, resolvePythonImport } from './python-resolve.js';

/** Parses at most this many files at once (in the parser processes and here, for Python). */
const PARSE_CONCURRENCY = 32;

/** Parses files (unresolved: `targets` is empty until `resolveAll`). */
export async function parseAll(
  ctx: BuildContext,
  files: readonly TreeFile[],
  blobs: ReadonlyMap<string, Buffer>,
): Promise<Map<string, SourceRecord>> {
  const records = new Map<string, SourceRecord>();
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      ctx.signal?.throwIfAborted();
      const file = files[next++] as TreeFile;
      records.set(file.path, await parseOne(ctx, file, blobs.get(file.oid)));
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARSE_CONCURRENCY, files.length) }, worker));
  return records;
}

async function parseOne(
  ctx: BuildContext,
  file: TreeFile,
  content: Buffer | undefined,
): Promise<SourceRecord> {
  const kind = isJsFile(file.path) ? 'js' : 'py';
  const empty: SourceRecord = { kind, requests: [], pyImports: [], resolved: [], targets: [] };
  if (!content || content.length > ctx.limits.maxFileBytes) {
    return { ...empty, warning: `larger than ${ctx.limits.maxFileBytes} bytes: not parsed` };
  }
  if (content.subarray(0, 8000).includes(0)) return { ...empty, warning: 'not a text file: not parsed' };
  const source = content.toString('utf8');
  try {
    if (kind === 'py') return { ...empty, pyImports: extractPythonImports(source) };
    const extracted = await extractJsImports(file.path, source);
    if (extracted.error) return { ...empty, warning: `does not parse: ${extracted.error}` };
    return { ...empty, requests: extracted.requests };
  } catch (error) {
    return { ...empty, warning: `does not parse: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Resolves the requests of `which` files in place; with `select`, only the requests it picks (the
 * others keep their previous file). Yields the event loop every few ms. Returns how many were resolved.
 */
export async function resolveAll(
  ctx: BuildContext,
  files: ReadonlyMap<string, number>,
  sources: Map<string, SourceRecord>,
  which: Iterable<string>,
  select?: (file: string, request: string, current: string | null) => boolean,
): Promise<number> {
  const has = (file: string) => files.has(file);
  const roots = pythonRoots(files.keys());
  let count = 0;
  for (const file of [...which]) {
    const record = sources.get(file);
    if (!record) continue;
    let resolved = record.resolved;
    if (record.kind === 'js') {
      const next: (string | null)[] = [];
      let changed = record.resolved.length !== record.requests.length;
      record.requests.forEach((request, index) => {
        const current = record.resolved[index] ?? null;
        if (!changed && select && !select(file, request, current)) {
          next.push(current);
          return;
        }
        const target = ctx.resolver.resolve(file, request);
        count++;
        if (target !== current) changed = true;
        next.push(target);
      });
      if (!changed && select) continue;
      resolved = next;
    }
    const targets = new Set<string>();
    if (record.kind === 'js') {
      for (const target of resolved) if (target) targets.add(target);
    } else {
      for (const spec of record.pyImports) {
        for (const target of resolvePythonImport(has, roots, file, spec)) targets.add(target);
      }
      count += record.pyImports.length;
    }
    targets.delete(file);
    sources.set(file, { ...record, resolved, targets: [...targets].sort() });
    const pause = yieldTurn();
    if (pause) {
      await pause;
      ctx.signal?.throwIfAborted();
    }
  }
  return count;
}
