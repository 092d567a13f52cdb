import { useMemo } from 'react';
import { cn } from '@/web/lib/cn';

export type PatchLineKind = 'header' | 'hunk' | 'add' | 'del' | 'context' | 'note';

/**
 * A tool's unified diff split into lines and told apart by their first character. Lines before
 * the first hunk are its header; inside hunks a `---` line is a deleted `--`, not a header. A
 * capped patch is shown as far as it goes.
 */
export function patchLines(patch: string): { kind: PatchLineKind; text: string }[] {
  const lines = patch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let inHunk = false;
  return lines.map((raw) => {
    const text = raw.replace(/\r$/, '');
    if (text.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text };
    }
    if (!inHunk) return { kind: 'header', text };
    if (text.startsWith('+')) return { kind: 'add', text };
    if (text.startsWith('-')) return { kind: 'del', text };
    if (text.startsWith('\\') || text.startsWith('…')) return { kind: 'note', text };
    return { kind: 'context', text };
  });
}

const LINE_STYLE: Record<PatchLineKind, string> = {
  header: 'text-zinc-500',
  hunk: 'text-sky-300',
  add: 'bg-emerald-950/70 text-emerald-300',
  del: 'bg-red-950/70 text-red-300',
  context: 'text-zinc-300',
  note: 'text-zinc-500 italic',
};

/** An edit's diff, added and removed lines coloured. Every line is text (the patch is agent output). */
export function PatchView({ id, patch }: { id: string; patch: string }) {
  const lines = useMemo(() => patchLines(patch), [patch]);
  return (
    <pre
      id={id}
      className="mt-1 ml-5 max-h-80 overflow-auto rounded border border-zinc-800 bg-zinc-900 py-1 font-mono text-[11px] leading-snug"
      data-testid="tool-patch"
    >
      {lines.map((line, index) => (
        <span
          // The patch never changes once shown: a line's position is its identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above.
          key={index}
          data-kind={line.kind}
          className={cn('block px-2 whitespace-pre-wrap break-words', LINE_STYLE[line.kind])}
        >
          {line.text || ' '}
        </span>
      ))}
    </pre>
  );
}
