import Anser from 'anser';
import { type CSSProperties, memo } from 'react';

/** What a terminal shows of a line rewritten with carriage returns (progress bars): its last part. */
function visiblePart(text: string): string {
  const trimmed = text.endsWith('\r') ? text.slice(0, -1) : text;
  const cut = trimmed.lastIndexOf('\r');
  return cut === -1 ? trimmed : trimmed.slice(cut + 1);
}

function styleOf(entry: Anser.AnserJsonEntry): CSSProperties | undefined {
  const decorations = new Set(entry.decorations);
  const style: CSSProperties = {};
  let fg = entry.fg ? `rgb(${entry.fg})` : undefined;
  let bg = entry.bg ? `rgb(${entry.bg})` : undefined;
  if (decorations.has('reverse')) [fg, bg] = [bg ?? 'rgb(9, 9, 11)', fg ?? 'rgb(244, 244, 245)'];
  if (fg) style.color = fg;
  if (bg) style.backgroundColor = bg;
  if (decorations.has('bold')) style.fontWeight = 600;
  if (decorations.has('dim')) style.opacity = 0.6;
  if (decorations.has('italic')) style.fontStyle = 'italic';
  if (decorations.has('hidden')) style.visibility = 'hidden';
  const lines = [
    decorations.has('underline') ? 'underline' : '',
    decorations.has('strikethrough') ? 'line-through' : '',
  ].filter(Boolean);
  if (lines.length > 0) style.textDecoration = lines.join(' ');
  return Object.keys(style).length > 0 ? style : undefined;
}

/**
 * Text with ANSI colour codes, as React spans. anser's JSON output is used (never its HTML), so the
 * text — a service's output, untrusted — is rendered as text and never parsed as markup.
 */
export const AnsiText = memo(function AnsiText({ text }: { text: string }) {
  const entries = Anser.ansiToJson(visiblePart(text), { json: true, remove_empty: true });
  return (
    <>
      {entries.map((entry, index) => {
        const style = styleOf(entry);
        return style ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one line never reorder.
          <span key={index} style={style}>
            {entry.content}
          </span>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the pieces of one line never reorder.
          <span key={index}>{entry.content}</span>
        );
      })}
    </>
  );
});
