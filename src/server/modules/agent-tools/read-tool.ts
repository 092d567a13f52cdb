import { readRegularFile, refuseBinary, stampOf } from './text-file.js';
import { numberedLine, numberWidth, plural, splitLines, type ToolContext } from './tool-context.js';
import type { ToolInput } from './tool-declarations.js';
import { ToolProblem, type ToolSuccess } from './tool-types.js';
import { existingFile } from './worktree-paths.js';

/**
 * read_file: numbered lines of a range, within the per-call caps. A read that showed the whole
 * file, no line cut, is remembered for write_file's rule.
 */
export async function readFileTool(ctx: ToolContext, input: ToolInput<'read_file'>): Promise<ToolSuccess> {
  const { limits } = ctx;
  const file = await existingFile(ctx.rootReal, input.path);
  const { data, info } = await readRegularFile(file.abs, file.rel, limits.maxFileBytes);
  refuseBinary(data, file.rel);
  const lines = splitLines(data.toString('utf8'));
  const total = lines.length;
  if (total === 0) {
    ctx.readInFull.set(file.rel, stampOf(info));
    return { ok: true, output: '(empty file)', summary: `Read ${file.rel} (empty)` };
  }
  const start = input.startLine ?? 1;
  if (start > total) {
    throw new ToolProblem(`${file.rel} has ${total} lines; startLine ${start} is past its end`);
  }
  if (input.endLine !== undefined && input.endLine < start) {
    throw new ToolProblem(`endLine ${input.endLine} is before startLine ${start}`);
  }
  const wanted = Math.min(input.endLine ?? total, total);
  const last = Math.min(wanted, start + limits.maxReadLines - 1);
  const width = numberWidth(last);
  const shown: string[] = [];
  let bytes = 0;
  let cutLines = 0;
  let end = start - 1;
  for (let n = start; n <= last; n++) {
    let line = lines[n - 1] ?? '';
    if (line.length > limits.maxLineChars) {
      line = `${line.slice(0, limits.maxLineChars)}… [line cut: ${line.length - limits.maxLineChars} more characters]`;
      cutLines++;
    }
    const row = numberedLine(n, width, line);
    if (shown.length > 0 && bytes + row.length + 1 > limits.maxReadBytes) break;
    shown.push(row);
    bytes += row.length + 1;
    end = n;
  }
  const notes: string[] = [];
  if (end < wanted) {
    const why =
      end === last && last < wanted
        ? `${limits.maxReadLines} lines`
        : `${Math.round(limits.maxReadBytes / 1024)} KB`;
    notes.push(
      `[Stopped at line ${end} of ${total} (at most ${why} per call). Continue with startLine ${end + 1}.]`,
    );
  } else if (end < total) {
    notes.push(`[Lines ${start}–${end} of ${total}.]`);
  }
  if (cutLines > 0)
    notes.push(`[${cutLines} line(s) longer than ${limits.maxLineChars} characters were cut.]`);
  const whole = start === 1 && end === total && cutLines === 0;
  if (whole) ctx.readInFull.set(file.rel, stampOf(info));
  return {
    ok: true,
    output: [...shown, ...notes].join('\n'),
    summary: whole
      ? `Read ${file.rel} (${plural(total, 'line')})`
      : `Read ${file.rel} lines ${start}–${end} of ${total}`,
  };
}
