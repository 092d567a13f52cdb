// Parsing and resolving the source files of one build (see graph-build.ts).

import { yieldTurn } from '@/server/lib/yield-turn.js';
import type { BuildContext } from './build-context.js';
import { readBlobChunks, type TreeFile } from './git-source.js';
import type { SourceRecord } from './graph-snapshot.js';
import { extractJsImports, isJsFile, type ParseInput } from './js-imports.js';
import { extractPythonImports } from './python-imports.js';
import { pythonRoots, resolvePythonImport } from './python-resolve.js';

/** A batch sent to a parser process holds at most this many files, or this many characters. */
const BATCH_FILES = 100;
const BATCH_CHARS = 256 * 1024;
/** Batches of one build waiting on the parsers at once (the pool keeps two per parser busy). */
const BATCHES_AHEAD = 6;

/**
 * Parses files (unresolved: `targets` is empty until `resolveAll`). `onParsed`, when given, gets
 * the records as they come (a batch at a time), for a caller that works on them meanwhile.
 */
export async function parseAll(
  ctx: BuildContext,
  files: readonly TreeFile[],
  blobs: ReadonlyMap<string, Buffer>,
  onParsed?: (records: Map<string, SourceRecord>) => void,
): Promise<Map<string, SourceRecord>> {
  const records = new Map<string, SourceRecord>();
  const local = new Map<string, SourceRecord>();
  const batches: ParseInput[][] = [];
  let batch: ParseInput[] = [];
  let chars = 0;
  for (const file of files) {
    const kind = isJsFile(file.path) ? 'js' : 'py';
    const checked = readable(ctx, kind, blobs.get(file.oid));
    if (typeof checked !== 'string') {
      local.set(file.path, checked);
      continue;
    }
    if (kind === 'py') {
      local.set(file.path, parsePython(checked));
      const pause = yieldTurn();
      if (pause) {
        await pause;
        ctx.signal?.throwIfAborted();
      }
      continue;
    }
    batch.push({ path: file.path, source: checked });
    chars += checked.length;
    if (batch.length >= BATCH_FILES || chars >= BATCH_CHARS) {
      batches.push(batch);
      batch = [];
      chars = 0;
    }
  }
  if (batch.length > 0) batches.push(batch);
  for (const [path, record] of local) records.set(path, record);
  if (local.size > 0) onParsed?.(local);

  let next = 0;
  const feeder = async () => {
    while (next < batches.length) {
      ctx.signal?.throwIfAborted();
      const inputs = batches[next++] as ParseInput[];
      const results = await extractJsImports(inputs);
      const parsed = new Map<string, SourceRecord>();
      inputs.forEach((input, i) => {
        const extracted = results[i] ?? { requests: [], error: 'no answer from the parser' };
        const record: SourceRecord = extracted.error
          ? { ...empty('js'), warning: `does not parse: ${extracted.error}` }
          : { ...empty('js'), requests: extracted.requests };
        records.set(input.path, record);
        parsed.set(input.path, record);
      });
      onParsed?.(parsed);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCHES_AHEAD, batches.length) }, feeder));
  ctx.signal?.throwIfAborted();
  // In the order of `files`, as before batching.
  return new Map(files.map((file) => [file.path, records.get(file.path) as SourceRecord]));
}

function empty(kind: 'js' | 'py'): SourceRecord {
  return { kind, requests: [], pyImports: [], resolved: [], targets: [] };
}

/** The text of a file, or its record (a warning, no edges) when it is too large or not text. */
function readable(ctx: BuildContext, kind: 'js' | 'py', content: Buffer | undefined): string | SourceRecord {
  if (!content || content.length > ctx.limits.maxFileBytes) {
    return { ...empty(kind), warning: `larger than ${ctx.limits.maxFileBytes} bytes: not parsed` };
  }
  if (content.subarray(0, 8000).includes(0))
    return { ...empty(kind), warning: 'not a text file: not parsed' };
  return content.toString('utf8');
}

function parsePython(source: string): SourceRecord {
  try {
    return { ...empty('py'), pyImports: extractPythonImports(source) };
  } catch (error) {
    return {
      ...empty('py'),
      warning: `does not parse: ${error instanceof Error ? error.message : String(error)}`,
    };
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
  roots: readonly string[] = pythonRoots(files.keys()),
): Promise<number> {
  const has = (file: string) => files.has(file);
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

/** Files read from git this many bytes at a time at first (see `readBlobChunks`). */
const FIRST_CHUNK_BYTES = 512 * 1024;

/**
 * Reads, parses and resolves the source files of a cold build as a pipeline: git reads the next
 * chunk of files while the parser processes parse the last one, and this process resolves each
 * batch as it comes back (once `mirrorReady`: the resolver reads the mirror). Returns the records
 * in the order of `sourceFiles` and how many requests were resolved.
 */
export async function parseAndResolve(
  ctx: BuildContext,
  files: ReadonlyMap<string, number>,
  sourceFiles: readonly TreeFile[],
  mirrorReady: Promise<void>,
): Promise<{ sources: Map<string, SourceRecord>; resolved: number }> {
  const sources = new Map<string, SourceRecord>();
  const roots = pythonRoots(files.keys());
  const work: Promise<number>[] = [];
  const onParsed = (records: Map<string, SourceRecord>) => {
    for (const [path, record] of records) sources.set(path, record);
    work.push(mirrorReady.then(() => resolveAll(ctx, files, sources, records.keys(), undefined, roots)));
  };
  const small = sourceFiles.filter((file) => file.size <= ctx.limits.maxFileBytes);
  const large = sourceFiles.filter((file) => file.size > ctx.limits.maxFileBytes);
  try {
    work.push(parseAll(ctx, large, new Map(), onParsed).then(() => 0));
    for await (const chunk of readBlobChunks(ctx.repo, small, ctx.signal, FIRST_CHUNK_BYTES)) {
      work.push(parseAll(ctx, chunk.files, chunk.contents, onParsed).then(() => 0));
    }
  } finally {
    // Every piece settles before this returns or throws: none runs on behind a failed build.
    for (let settled = 0; settled < work.length; ) {
      const pending = work.slice(settled);
      settled = work.length;
      await Promise.allSettled(pending);
    }
  }
  let resolved = 0;
  for (const outcome of await Promise.allSettled(work)) {
    if (outcome.status === 'rejected') throw outcome.reason;
    resolved += outcome.value;
  }
  return {
    sources: new Map(sourceFiles.map((file) => [file.path, sources.get(file.path) as SourceRecord])),
    resolved,
  };
}
