import { lstat } from 'node:fs/promises';
import { describeNoMatch, describeSeveral, lineNumberAt } from './edit-diagnostics.js';
import { readRegularFile, refuseBinary, stampOf, writeAtomically } from './text-file.js';
import { numberedLine, numberWidth, splitLines, type ToolContext } from './tool-context.js';
import type { ToolInput } from './tool-declarations.js';
import { ToolProblem, type ToolSuccess } from './tool-types.js';
import { verifiedParent, writeTarget } from './worktree-paths.js';

/**
 * edit_file: a search-and-replace on the file's bytes, so every byte outside the replaced text
 * stays as it was (encoding, BOM, line ends, a missing final newline). In a CRLF file the model's
 * LF-only text is matched and written with CRLF ends.
 */
export async function editFileTool(ctx: ToolContext, input: ToolInput<'edit_file'>): Promise<ToolSuccess> {
  const file = await writeTarget(ctx.rootReal, input.path, 'write');
  if (!file.exists) throw new ToolProblem(`${file.rel} does not exist; create it with write_file`);
  if (input.oldText === input.newText)
    throw new ToolProblem('oldText and newText are the same: nothing to change');
  // The lock comes before the read: content read before waiting for another writer would be stale.
  await ctx.beforeWrite(file.rel);
  const { data, info } = await readRegularFile(file.abs, file.rel, ctx.limits.maxFileBytes);
  refuseBinary(data, file.rel);
  const crlf = usesCrlf(data);
  const toFile = (text: string) => (crlf ? text.replace(/\r?\n/g, '\r\n') : text);
  let oldBytes = Buffer.from(input.oldText);
  let matches = findAll(data, oldBytes);
  if (matches.length === 0 && crlf && input.oldText.includes('\n')) {
    oldBytes = Buffer.from(toFile(input.oldText));
    matches = findAll(data, oldBytes);
  }
  if (matches.length === 0) throw new ToolProblem(describeNoMatch(data, input.oldText, file.rel));
  if (matches.length > 1 && !input.replaceAll)
    throw new ToolProblem(describeSeveral(data, matches, file.rel));
  const newBytes = Buffer.from(toFile(input.newText));

  const pieces: Buffer[] = [];
  let from = 0;
  let added = 0;
  let removed = 0;
  for (const at of matches) {
    pieces.push(data.subarray(from, at), newBytes);
    from = at + oldBytes.length;
    const counted = changedLines(data, at, oldBytes.length, newBytes);
    added += counted.added;
    removed += counted.removed;
  }
  pieces.push(data.subarray(from));
  const next = Buffer.concat(pieces);
  if (next.length > ctx.limits.maxFileBytes)
    throw new ToolProblem(`the edit would make ${file.rel} too large`);
  ctx.signal?.throwIfAborted();
  await writeAtomically(await verifiedParent(ctx.rootReal, file), file.abs, next, info.mode);
  if (ctx.readInFull.has(file.rel)) ctx.readInFull.set(file.rel, stampOf(await lstat(file.abs)));

  const firstLine = lineNumberAt(data, matches[0] ?? 0);
  const where = matches.length === 1 ? `line ${firstLine}` : `${matches.length} places`;
  return {
    ok: true,
    output: `Edited ${file.rel} at ${where} (+${added} −${removed}). Now:\n${excerpt(next, firstLine, newBytes)}`,
    summary: `Edited ${file.rel} +${added} −${removed}`,
    changed: { path: file.rel, added, removed },
  };
}

/** A CRLF file: most of its line ends are CRLF. */
function usesCrlf(data: Buffer): boolean {
  let lf = 0;
  let crlf = 0;
  for (let at = data.indexOf(10); at >= 0; at = data.indexOf(10, at + 1)) {
    lf++;
    if (at > 0 && data[at - 1] === 13) crlf++;
  }
  return crlf > 0 && crlf * 2 >= lf;
}

/** Non-overlapping occurrences, left to right. */
function findAll(data: Buffer, needle: Buffer): number[] {
  const found: number[] = [];
  for (let at = data.indexOf(needle); at >= 0; at = data.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

/** The whole lines a replacement touches, before and after, less the lines both share at either end. */
function changedLines(data: Buffer, at: number, length: number, replacement: Buffer) {
  const lineStart = at === 0 ? 0 : data.lastIndexOf(10, at - 1) + 1;
  const after = data.indexOf(10, at + length);
  const lineEnd = after < 0 ? data.length : after;
  const before = splitLines(data.subarray(lineStart, lineEnd).toString('utf8'));
  const now = splitLines(
    Buffer.concat([data.subarray(lineStart, at), replacement, data.subarray(at + length, lineEnd)]).toString(
      'utf8',
    ),
  );
  let head = 0;
  while (head < before.length && head < now.length && before[head] === now[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < now.length - head &&
    before[before.length - 1 - tail] === now[now.length - 1 - tail]
  )
    tail++;
  return { removed: before.length - head - tail, added: now.length - head - tail };
}

/** The edited place with three lines around it, numbered, so the model sees the result. */
function excerpt(next: Buffer, firstLine: number, replacement: Buffer): string {
  const lines = splitLines(next.toString('utf8'));
  const span = Math.max(1, splitLines(replacement.toString('utf8')).length);
  const from = Math.max(1, firstLine - 3);
  const to = Math.min(lines.length, firstLine + span + 2, from + 40);
  const width = numberWidth(to);
  const rows: string[] = [];
  for (let n = from; n <= to; n++) rows.push(numberedLine(n, width, (lines[n - 1] ?? '').slice(0, 500)));
  return rows.length > 0 ? rows.join('\n') : '(the file is now empty)';
}
