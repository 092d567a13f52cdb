import { performance } from 'node:perf_hooks';
import type { BuildContext } from './build-context.js';
import { changedFiles, listFiles, readBlobs, type TreeFile } from './git-source.js';
import { parseAll, parseAndResolve, resolveAll } from './graph-files.js';
import { buildImportedBy, type GraphSnapshot, type SourceRecord } from './graph-snapshot.js';
import { isJsFile, startParsers } from './js-imports.js';
import { Mirror } from './mirror.js';
import { configHints, fileStems, mustResolveAgain } from './resolution-keys.js';
import { mirrorConfig, parseJsonc } from './tsconfig-extends.js';

function isPythonFile(file: string): boolean {
  return file.endsWith('.py') || file.endsWith('.pyi');
}

export function isSourceFile(file: string): boolean {
  return isJsFile(file) || isPythonFile(file);
}

/** The graph of `commit`, from nothing. */
export async function buildCold(ctx: BuildContext, commit: string): Promise<GraphSnapshot> {
  const started = performance.now();
  const signal = ctx.signal;
  const warnings: string[] = [];
  let tree = await listFiles(ctx.repo, commit, signal);
  if (tree.length > ctx.limits.maxTreeFiles) {
    warnings.push(
      `the tree has ${tree.length} files: only the first ${ctx.limits.maxTreeFiles} are in the graph`,
    );
    tree = tree.slice(0, ctx.limits.maxTreeFiles);
  }
  const files = new Map(tree.map((file) => [file.path, file.size]));
  let sourceFiles = tree.filter((file) => isSourceFile(file.path));
  if (sourceFiles.length > ctx.limits.maxSourceFiles) {
    warnings.push(
      `${sourceFiles.length} source files: only the first ${ctx.limits.maxSourceFiles} were parsed (the rest have no edges)`,
    );
    sourceFiles = sourceFiles.slice(0, ctx.limits.maxSourceFiles);
  }
  // Node and oxc load in the parser processes (~0.1 s) while the mirror is written.
  if (sourceFiles.some((file) => isJsFile(file.path))) startParsers();
  const small = (file: TreeFile) => file.size <= ctx.limits.maxFileBytes;
  const configFiles = tree.filter((file) => Mirror.isContentFile(file.path) && small(file));
  const blobs = await readBlobs(ctx.repo, configFiles, signal);

  const mirrored = new Map<string, Buffer | null>(tree.map((file) => [file.path, null]));
  const configs = new Map<string, Buffer>();
  for (const file of configFiles) {
    const content = blobs.get(file.oid) ?? Buffer.alloc(0);
    configs.set(file.path, content);
    const config = mirrorConfig(file.path, content);
    mirrored.set(file.path, config.content);
    if (config.warning) warnings.push(config.warning);
  }
  // The mirror is written while the sources are read and parsed; resolving waits for it.
  const mirrorReady = ctx.mirror.reset(mirrored, signal).then(() => ctx.resolver.clear());
  mirrorReady.catch(() => undefined);
  const { sources, resolved } = await parseAndResolve(ctx, files, sourceFiles, mirrorReady);
  await mirrorReady;
  if (ctx.resolver.configWarning) warnings.push(ctx.resolver.configWarning);
  return {
    version: commit,
    files,
    sources,
    importedBy: buildImportedBy(sources),
    configs,
    hints: configHints(configs, parseJsonc),
    warnings,
    stats: { mode: 'cold', parsed: sources.size, resolved, ms: performance.now() - started },
  };
}

/**
 * The graph of `commit` from the graph of an earlier commit: only files changed between the two
 * are read and parsed. When a file was added or removed, or a JSON file (package.json, tsconfig)
 * changed, any request may now resolve elsewhere, so every request is resolved again (without
 * parsing again); otherwise only the changed files' requests are. Null when an update is not
 * worth it (too many changes) or not possible (the old commit is gone): build cold instead.
 */
export async function buildIncremental(
  ctx: BuildContext,
  previous: GraphSnapshot,
  commit: string,
): Promise<GraphSnapshot | null> {
  const started = performance.now();
  const signal = ctx.signal;
  let changes: Awaited<ReturnType<typeof changedFiles>>;
  try {
    changes = await changedFiles(ctx.repo, previous.version, commit, signal);
  } catch {
    return null;
  }
  if (changes.length > Math.max(1000, previous.files.size / 4)) return null;

  const files = new Map(previous.files);
  const sources = new Map(previous.sources);
  const configs = new Map(previous.configs);
  const removed: string[] = [];
  const written: TreeFile[] = [];
  const added: string[] = [];
  let configChanged = false;
  for (const change of changes) {
    if (Mirror.isContentFile(change.path)) configChanged = true;
    if (change.status === 'D') {
      files.delete(change.path);
      sources.delete(change.path);
      configs.delete(change.path);
      removed.push(change.path);
      continue;
    }
    if (change.status === 'A') added.push(change.path);
    if (change.file) written.push(change.file);
  }
  if (files.size + written.length > ctx.limits.maxTreeFiles) return null;
  const toRead = written.filter((file) => isSourceFile(file.path) || Mirror.isContentFile(file.path));
  const blobs = await readBlobs(ctx.repo, toRead, signal);
  const warnings = previous.warnings.filter((warning) => !warning.startsWith('tsconfig ignored'));

  await ctx.mirror.remove(removed);
  const mirrored = new Map<string, Buffer | null>();
  for (const file of written) {
    const content = blobs.get(file.oid);
    file.size = content?.length ?? Math.max(file.size, 0);
    files.set(file.path, file.size);
    if (Mirror.isContentFile(file.path) && content && file.size <= ctx.limits.maxFileBytes) {
      configs.set(file.path, content);
      const config = mirrorConfig(file.path, content);
      mirrored.set(file.path, config.content);
      if (config.warning && !warnings.includes(config.warning)) warnings.push(config.warning);
    } else if (!previous.files.has(file.path)) {
      mirrored.set(file.path, null);
    }
  }
  await ctx.mirror.write(mirrored, signal);

  const changedSources = written.filter((file) => isSourceFile(file.path));
  const parsed = await parseAll(ctx, changedSources, blobs);
  for (const [path, record] of parsed) sources.set(path, record);

  let importedBy: Map<string, Set<string>>;
  let resolved: number;
  const hints = configChanged ? configHints(configs, parseJsonc) : previous.hints;
  if (configChanged) {
    ctx.resolver.clear();
    resolved = await resolveAll(ctx, files, sources, sources.keys());
    importedBy = buildImportedBy(sources);
  } else if (added.length > 0 || removed.length > 0) {
    // The resolver's view of the disk is stale; only requests the added or deleted files can
    // change are resolved again (see resolution-keys.ts), and Python's (in memory, cheap).
    ctx.resolver.clear();
    const changedStems = new Set([...added, ...removed].flatMap(fileStems));
    const deleted = new Set(removed);
    const fresh = new Set(parsed.keys());
    resolved = await resolveAll(ctx, files, sources, sources.keys(), (file, request, current) =>
      fresh.has(file) ? true : mustResolveAgain(request, current, changedStems, deleted, hints),
    );
    importedBy = buildImportedBy(sources);
  } else {
    resolved = await resolveAll(ctx, files, sources, parsed.keys());
    importedBy = patchImportedBy(previous, sources, parsed.keys());
  }
  if (ctx.resolver.configWarning) warnings.push(ctx.resolver.configWarning);
  return {
    version: commit,
    files,
    sources,
    importedBy,
    configs,
    hints,
    warnings,
    stats: { mode: 'incremental', parsed: parsed.size, resolved, ms: performance.now() - started },
  };
}

/** The previous reverse index with the edges of `changed` files replaced; sets are copied on write. */
function patchImportedBy(
  previous: GraphSnapshot,
  sources: ReadonlyMap<string, SourceRecord>,
  changed: Iterable<string>,
): Map<string, Set<string>> {
  const importedBy = new Map(previous.importedBy as Map<string, Set<string>>);
  const copied = new Set<string>();
  const own = (target: string) => {
    let set = importedBy.get(target);
    if (!copied.has(target)) {
      set = new Set(set);
      importedBy.set(target, set);
      copied.add(target);
    }
    return set as Set<string>;
  };
  for (const file of changed) {
    for (const target of previous.sources.get(file)?.targets ?? []) own(target).delete(file);
    for (const target of sources.get(file)?.targets ?? []) own(target).add(file);
  }
  for (const target of copied) if (importedBy.get(target)?.size === 0) importedBy.delete(target);
  return importedBy;
}
