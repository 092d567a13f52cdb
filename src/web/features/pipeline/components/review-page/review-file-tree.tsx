import { Folder } from 'lucide-react';
import { memo, useMemo } from 'react';
import type { DiffFile } from '@/contracts/diff';
import { cn } from '@/web/lib/cn';
import { buildDiffTree, type DiffTreeNode } from '../../utils/diff-tree';
import { bySeverity } from '../../utils/pin-notes';
import { FileStatusBadge } from '../review/diff-file-tree';
import { SeverityIcon } from '../review/severity';

/**
 * The browser times the first paint of the count, drawn with the whole tree (Element Timing: a
 * PerformanceObserver of 'element' entries reads it, as the bench's review-page part does).
 */
const TIMED: Record<string, string> = { elementtiming: 'review-file-tree' };

interface ReviewFileTreeProps {
  files: readonly DiffFile[];
  viewed: ReadonlySet<string>;
  currentPath: string | null;
  onSelect: (path: string) => void;
  onViewed: (file: DiffFile, viewed: boolean) => void;
}

/**
 * The changed files as a tree, each with the person's "viewed" mark and its most severe finding.
 * Drawn again only when its props change (not on every event of the run).
 */
export const ReviewFileTree = memo(function ReviewFileTree({
  files,
  viewed,
  currentPath,
  onSelect,
  onViewed,
}: ReviewFileTreeProps) {
  const done = files.filter((file) => viewed.has(file.path)).length;
  const nodes = useMemo(() => buildDiffTree(files), [files]);
  return (
    <nav aria-label="Changed files" className="flex flex-col gap-1.5" data-testid="review-file-tree">
      <div className="flex items-center justify-between gap-2 px-1">
        <h2 className="text-xs font-semibold text-zinc-700">Files</h2>
        <span
          className="text-xs text-zinc-500 tabular-nums"
          data-testid="viewed-count"
          data-viewed={done}
          data-total={files.length}
          {...TIMED}
        >
          {done} / {files.length} viewed
        </span>
      </div>
      <div
        className="h-1 overflow-hidden rounded bg-zinc-200"
        role="progressbar"
        aria-label="Files viewed"
        aria-valuemin={0}
        aria-valuemax={files.length}
        aria-valuenow={done}
      >
        <div
          className="h-full bg-emerald-500"
          style={{ width: `${files.length ? (100 * done) / files.length : 0}%` }}
        />
      </div>
      <ul className="flex flex-col">
        <Nodes
          nodes={nodes}
          depth={0}
          viewed={viewed}
          currentPath={currentPath}
          onSelect={onSelect}
          onViewed={onViewed}
        />
      </ul>
    </nav>
  );
});

function Nodes({
  nodes,
  depth,
  ...props
}: Omit<ReviewFileTreeProps, 'files'> & { nodes: readonly DiffTreeNode[]; depth: number }) {
  return nodes.map((node) => {
    const indent = { paddingLeft: `${depth * 12 + 4}px` };
    if (node.type === 'dir')
      return (
        <li key={`d:${node.path}`}>
          <p className="flex items-center gap-1 py-0.5 text-xs text-zinc-500" style={indent}>
            <Folder aria-hidden="true" className="size-3.5 shrink-0" />
            <span className="truncate font-mono">{node.name}</span>
          </p>
          <ul>
            <Nodes nodes={node.children} depth={depth + 1} {...props} />
          </ul>
        </li>
      );
    const { file } = node;
    const isViewed = props.viewed.has(file.path);
    const worst = [...file.findings].sort(bySeverity)[0];
    return (
      <li
        key={`f:${file.path}`}
        className={cn(
          'flex items-center gap-1.5 rounded py-0.5 pr-1',
          props.currentPath === file.path && 'bg-sky-100',
        )}
        style={indent}
        data-testid="review-tree-file"
        data-path={file.path}
        data-viewed={isViewed}
        data-current={props.currentPath === file.path || undefined}
      >
        <input
          type="checkbox"
          checked={isViewed}
          onChange={(event) => props.onViewed(file, event.target.checked)}
          aria-label={`Viewed ${file.path}`}
          data-testid={`viewed-${file.path}`}
        />
        <button
          type="button"
          onClick={() => props.onSelect(file.path)}
          title={file.path}
          className={cn(
            'min-w-0 flex-1 truncate text-left font-mono text-xs hover:underline',
            isViewed ? 'text-zinc-400' : 'text-zinc-800',
          )}
        >
          {node.name}
        </button>
        {worst && worst.severity !== 'info' && (
          <SeverityIcon severity={worst.severity} className="size-3.5" />
        )}
        <FileStatusBadge status={file.status} />
      </li>
    );
  });
}
