import type { FileAction, FileChange } from '@/contracts/pipeline';
import { Badge } from '@/web/components/ui/badge';
import { cn } from '@/web/lib/cn';

const actionStyle: Record<FileAction, string> = {
  create: 'bg-emerald-50 text-emerald-700 ring-emerald-200',
  modify: 'bg-sky-50 text-sky-700 ring-sky-200',
  delete: 'bg-red-50 text-red-700 ring-red-200',
};

const actionLabel: Record<FileAction, string> = { create: 'Added', modify: 'Changed', delete: 'Deleted' };

/** Shown per file; the whole file is on the run's branch. */
const PREVIEW_CHARS = 20_000;

/** The files the coder wrote, each opening to its content. */
export function FileChangeList({ files }: { files: readonly FileChange[] }) {
  return (
    <ul className="flex flex-col gap-1" data-testid="pipeline-file-changes">
      {files.map((file) => (
        <li key={file.filePath} data-action={file.action}>
          <details className="group rounded-md border border-zinc-200 open:bg-zinc-50">
            <summary className="flex cursor-pointer items-center gap-2 px-2.5 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-sky-500">
              <Badge className={cn('w-16 justify-center', actionStyle[file.action])}>
                {actionLabel[file.action]}
              </Badge>
              <span className="min-w-0 flex-1 truncate font-mono text-xs text-zinc-800" title={file.filePath}>
                {file.filePath}
              </span>
              <span className="hidden text-[11px] text-zinc-400 sm:inline">{file.language}</span>
            </summary>
            {file.action !== 'delete' && (
              <pre className="max-h-80 overflow-auto border-t border-zinc-200 bg-white p-3 font-mono text-xs leading-relaxed whitespace-pre text-zinc-800">
                {file.content.length > PREVIEW_CHARS
                  ? `${file.content.slice(0, PREVIEW_CHARS)}\n… (${file.content.length - PREVIEW_CHARS} more characters on the branch)`
                  : file.content}
              </pre>
            )}
          </details>
        </li>
      ))}
    </ul>
  );
}
