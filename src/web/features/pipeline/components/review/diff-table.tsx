import { Plus } from 'lucide-react';
import { type CSSProperties, Fragment, type ReactNode } from 'react';
import { cn } from '@/web/lib/cn';
import type { HighlightedLines } from '../../hooks/use-highlighted-patch';
import { anchorLine, type SplitRow, splitAnchor, type UnifiedRow } from '../../utils/diff-rows';
import type { CodeToken } from '../../utils/highlighter';
import type { PatchLine } from '../../utils/parse-patch';
import type { LineNotes } from '../../utils/pin-notes';
import { type CommentActions, LineNotesView } from './line-notes';

export interface DiffTableProps {
  deletedFile: boolean;
  highlighted: HighlightedLines | null;
  notes: Map<number, LineNotes>;
  /** The line whose comment box is open. */
  composingLine: number | null;
  /** Null when comments cannot be added (the run is not in Review). */
  onCompose: ((line: number) => void) | null;
  actions: CommentActions | null;
  onCloseComposer: () => void;
  /** The line a finding in the tree pointed at, marked until another is chosen. */
  focusLine: number | null;
  /** Lines keep their length and the table scrolls sideways (the full-width review page); default: they wrap. */
  nowrap?: boolean;
}

const ROW_TONE = { add: 'bg-emerald-50', del: 'bg-red-50', context: '' } as const;
const MARKER = { add: '+', del: '−', context: ' ' } as const;
const textCell = 'px-2 align-top whitespace-pre-wrap [overflow-wrap:anywhere]';
const textCellOf = (nowrap: boolean | undefined) => (nowrap ? 'px-2 align-top whitespace-pre' : textCell);
const numberCell = 'w-px px-2 text-right align-top text-zinc-400 select-none tabular-nums';

/** Colours go in as the variables `.code-token` reads (styles.css), one per theme. */
function tokenStyle(token: CodeToken): CSSProperties | undefined {
  const style: CSSProperties & Record<`--${string}`, string> = {};
  if (token.color) style['--code-light'] = token.color;
  if (token.darkColor) style['--code-dark'] = token.darkColor;
  if (token.fontStyle) {
    if (token.fontStyle & 1) style.fontStyle = 'italic';
    if (token.fontStyle & 2) style.fontWeight = 600;
    if (token.fontStyle & 4) style.textDecoration = 'underline';
  }
  return token.color || token.fontStyle ? style : undefined;
}

/** A line's text, coloured when its tokens are known. Tokens are rendered as text: React escapes them. */
function LineText({ line, highlighted }: { line: PatchLine; highlighted: HighlightedLines | null }) {
  const tokens =
    line.kind === 'del' ? highlighted?.old.get(line.oldLine!) : highlighted?.new.get(line.newLine!);
  const content: ReactNode = tokens
    ? tokens.map((token, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a line's tokens have no identity besides their place.
        <span key={index} className={token.color ? 'code-token' : undefined} style={tokenStyle(token)}>
          {token.content}
        </span>
      ))
    : line.text;
  return (
    <>
      <span aria-hidden="true" className="mr-1.5 inline-block w-2 text-zinc-400 select-none">
        {MARKER[line.kind]}
      </span>
      {content}
      {line.noNewline && (
        <span className="ml-2 text-[10px] text-zinc-400 select-none" title="No newline at end of file">
          ⏎̸
        </span>
      )}
    </>
  );
}

/** A new-version line number; a button that opens a comment box when comments can be added. */
function NewLineNumber({ line, onCompose }: { line: number | null; onCompose: DiffTableProps['onCompose'] }) {
  if (line === null) return <td className={numberCell} />;
  if (!onCompose) return <td className={numberCell}>{line}</td>;
  return (
    <td className={cn(numberCell, 'p-0')}>
      <button
        type="button"
        onClick={() => onCompose(line)}
        aria-label={`Comment on line ${line}`}
        title={`Comment on line ${line}`}
        className="group flex w-full items-center justify-end gap-0.5 px-2 text-zinc-400 hover:bg-sky-100 hover:text-sky-700 focus-visible:outline-2 focus-visible:outline-sky-500"
        data-testid="diff-gutter"
        data-line={line}
      >
        <Plus
          aria-hidden="true"
          className="size-3 opacity-0 group-hover:opacity-100 group-focus-visible:opacity-100"
        />
        {line}
      </button>
    </td>
  );
}

function HunkRow({ header, span }: { header: string; span: number }) {
  return (
    <tr className="bg-sky-50/60 text-sky-800" data-testid="diff-hunk">
      <td colSpan={span} className="px-2 py-0.5 whitespace-pre-wrap [overflow-wrap:anywhere]">
        {header}
      </td>
    </tr>
  );
}

function NotesRow({ anchor, span, props }: { anchor: number | null; span: number; props: DiffTableProps }) {
  if (anchor === null) return null;
  const notes = props.notes.get(anchor);
  const composing = props.composingLine === anchor;
  if (!notes && !composing) return null;
  return (
    <tr>
      <td colSpan={span} className="border-y border-zinc-100 bg-zinc-50/60">
        <LineNotesView
          line={anchor}
          notes={notes}
          composing={composing}
          actions={props.actions}
          onCloseComposer={props.onCloseComposer}
        />
      </td>
    </tr>
  );
}

const focusRing = 'outline-2 -outline-offset-2 outline-amber-400';

export function UnifiedTable({ rows, ...props }: DiffTableProps & { rows: readonly UnifiedRow[] }) {
  return (
    <table
      className={cn(props.nowrap ? 'min-w-full' : 'w-full', 'border-collapse font-mono text-xs leading-5')}
      data-testid="diff-unified"
    >
      <tbody>
        {rows.map((row) => {
          if (row.type === 'hunk') return <HunkRow key={row.key} header={row.header} span={3} />;
          const { line } = row;
          const anchor = anchorLine(line, props.deletedFile);
          return (
            <Fragment key={row.key}>
              <tr
                className={cn(
                  ROW_TONE[line.kind],
                  anchor !== null && anchor === props.focusLine && focusRing,
                )}
                data-kind={line.kind}
                data-anchor={anchor ?? undefined}
                data-focused={(anchor !== null && anchor === props.focusLine) || undefined}
              >
                <td className={numberCell}>{line.oldLine}</td>
                <NewLineNumber line={props.deletedFile ? null : line.newLine} onCompose={props.onCompose} />
                <td className={cn(textCellOf(props.nowrap), 'w-full')}>
                  <LineText line={line} highlighted={props.highlighted} />
                </td>
              </tr>
              <NotesRow anchor={anchor} span={3} props={props} />
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}

export function SplitTable({ rows, ...props }: DiffTableProps & { rows: readonly SplitRow[] }) {
  return (
    <table
      className={cn(
        props.nowrap ? 'min-w-full' : 'w-full table-fixed',
        'border-collapse font-mono text-xs leading-5',
      )}
      data-testid="diff-split"
    >
      <colgroup>
        <col className="w-12" />
        <col className={cn(props.nowrap && 'w-1/2')} />
        <col className="w-12" />
        <col className={cn(props.nowrap && 'w-1/2')} />
      </colgroup>
      <tbody>
        {rows.map((row) => {
          if (row.type === 'hunk') return <HunkRow key={row.key} header={row.header} span={4} />;
          const anchor = splitAnchor(row, props.deletedFile);
          const { left, right } = row;
          return (
            <Fragment key={row.key}>
              <tr
                className={cn(anchor !== null && anchor === props.focusLine && focusRing)}
                data-anchor={anchor ?? undefined}
                data-focused={(anchor !== null && anchor === props.focusLine) || undefined}
              >
                <td className={cn(numberCell, left && ROW_TONE[left.kind])}>{left?.oldLine}</td>
                <td
                  className={cn(textCellOf(props.nowrap), left ? ROW_TONE[left.kind] : 'bg-zinc-50')}
                  data-side="old"
                >
                  {left && <LineText line={left} highlighted={props.highlighted} />}
                </td>
                <NewLineNumber
                  line={props.deletedFile ? null : (right?.newLine ?? null)}
                  onCompose={props.onCompose}
                />
                <td
                  className={cn(
                    textCellOf(props.nowrap),
                    'border-l border-zinc-200',
                    right ? ROW_TONE[right.kind] : 'bg-zinc-50',
                  )}
                  data-side="new"
                >
                  {right && <LineText line={right} highlighted={props.highlighted} />}
                </td>
              </tr>
              <NotesRow anchor={anchor} span={4} props={props} />
            </Fragment>
          );
        })}
      </tbody>
    </table>
  );
}
