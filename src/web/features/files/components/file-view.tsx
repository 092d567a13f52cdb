import { ArrowLeft, FileWarning, TriangleAlert } from 'lucide-react';
import { type CSSProperties, useMemo } from 'react';
import type { ProjectFile } from '@/contracts/projects';
import { Button } from '@/web/components/ui/button';
import { EmptyState } from '@/web/components/ui/empty-state';
import { formatBytes } from '@/web/lib/format';

interface FileViewProps {
  file: ProjectFile;
  onBack?: () => void;
}

/** A file's text with line numbers. React escapes the text; nothing here is parsed as HTML. */
export function FileView({ file, onBack }: FileViewProps) {
  const lines = useMemo(() => {
    const all = file.content.split(/\r?\n/);
    // A final newline does not start another line.
    if (all.length > 1 && all[all.length - 1] === '') all.pop();
    return all;
  }, [file.content]);
  const gutter = `${Math.max(2, String(lines.length).length)}ch`;

  return (
    <div className="flex h-full min-h-0 flex-col">
      <div className="flex items-center gap-2 border-b border-zinc-200 px-3 py-2">
        {onBack && (
          <Button
            size="icon-sm"
            variant="ghost"
            aria-label="Back to files"
            onClick={onBack}
            className="md:hidden"
          >
            <ArrowLeft aria-hidden="true" className="size-4" />
          </Button>
        )}
        <h2 className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-800" title={file.path}>
          {file.path}
        </h2>
        <span className="shrink-0 text-xs text-zinc-500 tabular-nums">
          {file.isText ? `${lines.length} lines · ` : ''}
          {formatBytes(file.size)}
        </span>
      </div>
      {file.truncated && file.isText && (
        <p
          role="note"
          className="flex items-center gap-2 border-b border-amber-200 bg-amber-50 px-3 py-1.5 text-xs text-amber-800"
        >
          <TriangleAlert aria-hidden="true" className="size-3.5 shrink-0" />
          This file is large: only its beginning is shown.
        </p>
      )}
      {file.isText ? (
        <pre
          className="code-lines min-h-0 flex-1 overflow-auto bg-white py-2 font-mono text-xs leading-5 text-zinc-800"
          style={{ '--gutter': gutter } as CSSProperties}
          data-testid="file-content"
        >
          <code>
            {lines.map((line, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity besides their number.
              <span key={index} className="code-line">
                {line}
              </span>
            ))}
          </code>
        </pre>
      ) : (
        <EmptyState
          icon={FileWarning}
          className="flex-1"
          title="Binary file"
          description="This file does not look like text, so it is not shown."
        />
      )}
    </div>
  );
}
