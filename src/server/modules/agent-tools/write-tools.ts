import { lstat, mkdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { countLines, formatBytes, isBinary, readRegularFile, stampOf, writeAtomically } from './text-file.js';
import { plural, type ToolContext } from './tool-context.js';
import type { ToolInput } from './tool-declarations.js';
import { ToolProblem, type ToolSuccess } from './tool-types.js';
import { verifiedParent, writeTarget } from './worktree-paths.js';

/**
 * write_file: a new file, or an existing one the agent has read in full in this step (and that
 * nobody changed since) — a model that rewrites a file it saw only part of loses the rest.
 */
export async function writeFileTool(ctx: ToolContext, input: ToolInput<'write_file'>): Promise<ToolSuccess> {
  const file = await writeTarget(ctx.rootReal, input.path, 'write');
  const content = Buffer.from(input.content);
  if (content.length > ctx.limits.maxFileBytes) {
    throw new ToolProblem(
      `content is ${formatBytes(content.length)}, over the ${formatBytes(ctx.limits.maxFileBytes)} cap`,
    );
  }
  if (file.exists && !ctx.readInFull.has(file.rel)) {
    throw new ToolProblem(
      `${file.rel} already exists and you have not read all of it in this step: read it in full with ` +
        'read_file first, or change it with edit_file',
    );
  }
  await ctx.beforeWrite(file.rel);
  let mode: number | undefined;
  let removed = 0;
  const info = await lstat(file.abs).catch(() => null);
  if (info) {
    if (!info.isFile()) throw new ToolProblem(`${file.rel} is not a regular file`);
    const seen = ctx.readInFull.get(file.rel);
    if (seen !== stampOf(info)) {
      throw new ToolProblem(`${file.rel} changed since you read it; read it again before replacing it`);
    }
    mode = info.mode;
    removed = countLines((await readRegularFile(file.abs, file.rel, ctx.limits.maxFileBytes)).data);
  } else if (file.exists) {
    throw new ToolProblem(`${file.rel} was deleted since you read it; read the directory again`);
  }
  ctx.signal?.throwIfAborted();
  await mkdir(path.dirname(file.abs), { recursive: true });
  await writeAtomically(await verifiedParent(ctx.rootReal, file), file.abs, content, mode);
  ctx.readInFull.set(file.rel, stampOf(await lstat(file.abs)));
  const added = countLines(content);
  const verb = info ? 'Replaced' : 'Created';
  return {
    ok: true,
    output: `${verb} ${file.rel} (${plural(added, 'line')}, ${formatBytes(content.length)}).`,
    summary: `Wrote ${file.rel} (${plural(added, 'line')})`,
    changed: { path: file.rel, added, removed },
  };
}

/** delete_file: a file, or a link that stays inside (the link, not what it points to). */
export async function deleteFileTool(
  ctx: ToolContext,
  input: ToolInput<'delete_file'>,
): Promise<ToolSuccess> {
  const file = await writeTarget(ctx.rootReal, input.path, 'delete');
  if (!file.exists) throw new ToolProblem(`${file.rel}: no such file`);
  await ctx.beforeWrite(file.rel);
  const info = await lstat(file.abs);
  let removed = 0;
  if (info.isFile() && info.size <= ctx.limits.maxFileBytes) {
    const { data } = await readRegularFile(file.abs, file.rel, ctx.limits.maxFileBytes);
    if (!isBinary(data)) removed = countLines(data);
  } else if (!info.isFile() && !info.isSymbolicLink()) {
    throw new ToolProblem(`${file.rel} is not a regular file`);
  }
  ctx.signal?.throwIfAborted();
  await verifiedParent(ctx.rootReal, file);
  await unlink(file.abs);
  ctx.readInFull.delete(file.rel);
  return {
    ok: true,
    output: `Deleted ${file.rel}.`,
    summary: `Deleted ${file.rel}${removed > 0 ? ` −${removed}` : ''}`,
    changed: { path: file.rel, added: 0, removed },
  };
}
