import { Braces, ChevronDown, ChevronRight } from 'lucide-react';
import { memo, useId, useMemo, useState } from 'react';
import { type ProsePart, prettyAnswer, splitProse, summarizeAnswer } from '../../utils/json-answer';
import { formatCount } from '../../utils/run-labels';

/** Characters of plain prose one block draws, from its end: long runs stay responsive. */
const MAX_DRAWN = 200_000;

/** The text as drawn: without the blank lines around it (the timeline spaces its lines), and its end only when long. */
function drawn(text: string): string {
  const trimmed = text.replace(/^\s*\n|\n\s*$/g, '');
  if (trimmed.length <= MAX_DRAWN) return trimmed;
  const hidden = trimmed.length - MAX_DRAWN;
  return `… ${formatCount(hidden)} earlier characters hidden\n${trimmed.slice(-MAX_DRAWN)}`;
}

type AnswerPart = Extract<ProsePart, { kind: 'answer' }>;

function answerLine(part: AnswerPart, live: boolean): string {
  const size = `${formatCount(part.raw.length)} characters`;
  if (!part.closed) return live ? `Writing the answer… (${size})` : `Answer, unfinished (${size})`;
  if (!part.valid) return `Answer that is not valid JSON (${size})`;
  return summarizeAnswer(part.value);
}

/** A JSON answer, folded to one readable line; opened, the JSON pretty-printed (as text). */
function AnswerBlock({ part, live }: { part: AnswerPart; live: boolean }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const pretty = useMemo(() => (open ? prettyAnswer(part) : ''), [open, part]);
  return (
    <div
      className="my-1 rounded border border-zinc-800 bg-zinc-900/60"
      data-testid="json-answer"
      data-state={part.closed ? (part.valid ? 'valid' : 'invalid') : 'writing'}
    >
      <button
        type="button"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((value) => !value)}
        className="flex w-full items-start gap-1.5 px-2 py-1 text-left text-zinc-100 hover:bg-zinc-800/60 focus-visible:outline-2 focus-visible:outline-sky-500"
      >
        {open ? (
          <ChevronDown aria-hidden="true" className="mt-0.5 size-3.5 shrink-0 text-zinc-500" />
        ) : (
          <ChevronRight aria-hidden="true" className="mt-0.5 size-3.5 shrink-0 text-zinc-500" />
        )}
        <Braces aria-hidden="true" className="mt-0.5 size-3.5 shrink-0 text-amber-300" />
        <span className="min-w-0 break-words" data-testid="json-answer-summary">
          {answerLine(part, live)}
        </span>
        <span className="sr-only">{open ? ' (hide the JSON)' : ' (show the JSON)'}</span>
      </button>
      {open && (
        <pre
          id={bodyId}
          className="max-h-96 overflow-auto border-t border-zinc-800 px-2 py-1.5 text-[11px] break-words whitespace-pre-wrap text-zinc-300"
          data-testid="json-answer-body"
        >
          {pretty}
        </pre>
      )}
    </div>
  );
}

/**
 * A run of an agent's prose as plain text, its JSON answers folded. Drawn again only when its text
 * changes (the newest block, while it streams).
 */
export const ProseBlock = memo(function ProseBlock({ text, live }: { text: string; live: boolean }) {
  const parts = useMemo(
    () => splitProse(text).map((part) => (part.kind === 'text' ? { ...part, text: drawn(part.text) } : part)),
    [text],
  );
  return (
    <div data-testid="agent-prose">
      {parts.map((part, index) =>
        part.kind === 'text' ? (
          part.text && (
            <pre
              // Parts only grow at the end while the text streams: a part's position is its identity.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above.
              key={index}
              className="font-mono break-words whitespace-pre-wrap text-zinc-100"
            >
              {part.text}
            </pre>
          )
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: see above.
          <AnswerBlock key={index} part={part} live={live} />
        ),
      )}
    </div>
  );
});
