import { FileCode2, FolderGit2 } from 'lucide-react';
import { type ReactNode, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { EmptyState } from '@/web/components/ui/empty-state';
import { ErrorState } from '@/web/components/ui/error-state';
import { LoadingState } from '@/web/components/ui/spinner';
import { cn } from '@/web/lib/cn';
import { useProjectFile } from '../api/get-file';
import { useProjectTree } from '../api/get-tree';
import { ancestorsOf, buildTree } from '../utils/build-tree';
import { FileTree } from './file-tree';
import { FileView } from './file-view';

/**
 * The file browser: the tree on the left, the chosen file (?path=) on the right; one at a time on phones.
 * `repositoryInfo` (the clone command) shows while no file is chosen, and in an empty repository.
 */
export function FilesView({ projectId, repositoryInfo }: { projectId: string; repositoryInfo?: ReactNode }) {
  const [searchParams, setSearchParams] = useSearchParams();
  const selectedPath = searchParams.get('path') ?? undefined;
  const tree = useProjectTree(projectId);
  const nodes = useMemo(() => buildTree(tree.data?.entries ?? []), [tree.data]);
  const [expanded, setExpanded] = useState<Set<string>>(() => new Set(ancestorsOf(selectedPath ?? '')));

  const selectPath = (path: string | undefined) =>
    setSearchParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (path) next.set('path', path);
        else next.delete('path');
        return next;
      },
      { replace: true },
    );

  const toggle = (path: string) =>
    setExpanded((current) => {
      const next = new Set(current);
      if (next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });

  if (tree.isPending) return <LoadingState label="Loading files…" />;
  if (tree.isError) {
    return (
      <ErrorState
        title="Could not load the files"
        error={tree.error}
        onRetry={() => void tree.refetch()}
        retrying={tree.isFetching}
      />
    );
  }
  if (tree.data.entries.length === 0) {
    return (
      <EmptyState
        icon={FolderGit2}
        className="h-full"
        title="This repository is empty"
        description={`There are no files on ${tree.data.branch} yet. Files appear here once a commit adds them.`}
        action={repositoryInfo}
      />
    );
  }

  return (
    <div className="flex h-full min-h-0 border-t border-zinc-200 md:border-t-0 md:p-4">
      <div className="flex min-h-0 flex-1 overflow-hidden bg-white md:rounded-lg md:border md:border-zinc-200">
        <aside
          className={cn(
            'min-h-0 w-full shrink-0 overflow-y-auto border-zinc-200 md:block md:w-72 md:border-r',
            selectedPath && 'hidden',
          )}
        >
          <div className="flex items-center justify-between gap-2 border-b border-zinc-200 px-3 py-2 text-xs text-zinc-500">
            <span className="truncate">
              <span className="font-medium text-zinc-700">{tree.data.branch}</span>
              {tree.data.commit && <span className="ml-1.5 font-mono">{tree.data.commit.slice(0, 7)}</span>}
            </span>
            <span className="shrink-0 tabular-nums">{tree.data.entries.length} files</span>
          </div>
          <FileTree
            nodes={nodes}
            expanded={expanded}
            selectedPath={selectedPath}
            onToggle={toggle}
            onSelect={selectPath}
          />
        </aside>
        <section
          aria-label="File content"
          data-testid="file-view"
          className={cn(
            'min-h-0 min-w-0 flex-1 md:flex md:flex-col',
            selectedPath ? 'flex flex-col' : 'hidden',
          )}
        >
          <SelectedFile
            projectId={projectId}
            path={selectedPath}
            onBack={() => selectPath(undefined)}
            repositoryInfo={repositoryInfo}
          />
        </section>
      </div>
    </div>
  );
}

function SelectedFile({
  projectId,
  path,
  onBack,
  repositoryInfo,
}: {
  projectId: string;
  path: string | undefined;
  onBack: () => void;
  repositoryInfo: ReactNode;
}) {
  const file = useProjectFile(projectId, path);
  if (!path) {
    return (
      <EmptyState
        icon={FileCode2}
        className="h-full"
        title="Choose a file"
        description="Pick a file in the tree to read it."
        action={repositoryInfo}
      />
    );
  }
  if (file.isPending) return <LoadingState label="Loading file…" />;
  if (file.isError) {
    return (
      <ErrorState
        title={`Could not open ${path}`}
        error={file.error}
        onRetry={() => void file.refetch()}
        retrying={file.isFetching}
      />
    );
  }
  return <FileView file={file.data} onBack={onBack} />;
}
