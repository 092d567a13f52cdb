import { numberedLine, numberWidth, splitLines } from './tool-context.js';

/** What an edit that does not apply tells the model, so its next try can. */

export function lineNumberAt(data: Buffer, offset: number): number {
  let line = 1;
  for (let at = data.indexOf(10); at >= 0 && at < offset; at = data.indexOf(10, at + 1)) line++;
  return line;
}

export function describeSeveral(data: Buffer, matches: number[], rel: string): string {
  const lines: number[] = [];
  let line = 1;
  let scanned = 0;
  for (const at of matches.slice(0, 20)) {
    for (let nl = data.indexOf(10, scanned); nl >= 0 && nl < at; nl = data.indexOf(10, nl + 1)) {
      line++;
      scanned = nl + 1;
    }
    lines.push(line);
  }
  const more = matches.length > 20 ? ` and ${matches.length - 20} more` : '';
  return (
    `oldText occurs ${matches.length} times in ${rel}, at lines ${lines.join(', ')}${more}. ` +
    'Include more of the surrounding lines so it occurs once, or set replaceAll to change every one.'
  );
}

/**
 * No occurrence: where the first line of oldText does occur (with the lines around it), and
 * whether the text would match with whitespace ignored — the usual cause.
 */
export function describeNoMatch(data: Buffer, oldText: string, rel: string): string {
  const text = data.toString('utf8');
  const lines = splitLines(text);
  const probe =
    oldText
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? '';
  const parts = [`oldText was not found in ${rel}.`];
  const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (squash(oldText) !== '' && squash(text).includes(squash(oldText))) {
    parts.push(
      'It would match with whitespace ignored: copy indentation (tabs or spaces) and line breaks exactly as read_file shows them.',
    );
  }
  const candidates: number[] = [];
  for (let i = 0; i < lines.length && candidates.length < 3; i++) {
    if (probe !== '' && (lines[i] ?? '').includes(probe)) candidates.push(i + 1);
  }
  if (candidates.length === 0) {
    parts.push(
      `Its first line ${JSON.stringify(probe.slice(0, 200))} does not occur in the file; read the file again.`,
    );
    return parts.join(' ');
  }
  const span = oldText.split('\n').length;
  parts.push(
    `Its first line occurs at line${candidates.length > 1 ? 's' : ''} ${candidates.join(', ')}; there the file reads:`,
  );
  for (const at of candidates) {
    const from = Math.max(1, at - 2);
    const to = Math.min(lines.length, at + Math.min(span, 12) + 1);
    const width = numberWidth(to);
    const rows: string[] = [];
    for (let n = from; n <= to; n++) rows.push(numberedLine(n, width, (lines[n - 1] ?? '').slice(0, 300)));
    parts.push(`\n${rows.join('\n')}`);
  }
  return parts.join(' ');
}
