import { ChevronRight, FileText, Folder, FolderOpen } from 'lucide-react';
import { cn } from '@/web/lib/cn';
import { formatBytes } from '@/web/lib/format';
import type { TreeNode } from '../utils/build-tree';

interface FileTreeProps {
  nodes: TreeNode[];
  expanded: ReadonlySet<string>;
  selectedPath: string | undefined;
  onToggle: (path: string) => void;
  onSelect: (path: string) => void;
}

/** Folders are disclosure buttons (aria-expanded); files are buttons marked aria-current when shown. */
export function FileTree({ nodes, expanded, selectedPath, onToggle, onSelect }: FileTreeProps) {
  return (
    <nav aria-label="Files" data-testid="file-tree" className="py-1 text-[13px]">
      <TreeLevel
        nodes={nodes}
        depth={0}
        expanded={expanded}
        selectedPath={selectedPath}
        onToggle={onToggle}
        onSelect={onSelect}
      />
    </nav>
  );
}

function TreeLevel({
  nodes,
  depth,
  ...props
}: Omit<FileTreeProps, 'nodes'> & { nodes: TreeNode[]; depth: number }) {
  return (
    <ul className="flex flex-col">
      {nodes.map((node) => (
        <li key={node.path}>
          <TreeRow node={node} depth={depth} {...props} />
          {node.kind === 'folder' && props.expanded.has(node.path) && (
            <TreeLevel nodes={node.children} depth={depth + 1} {...props} />
          )}
        </li>
      ))}
    </ul>
  );
}

function TreeRow({
  node,
  depth,
  expanded,
  selectedPath,
  onToggle,
  onSelect,
}: Omit<FileTreeProps, 'nodes'> & { node: TreeNode; depth: number }) {
  const isFolder = node.kind === 'folder';
  const open = isFolder && expanded.has(node.path);
  const selected = !isFolder && node.path === selectedPath;
  const Icon = isFolder ? (open ? FolderOpen : Folder) : FileText;
  return (
    <button
      type="button"
      onClick={() => (isFolder ? onToggle(node.path) : onSelect(node.path))}
      aria-expanded={isFolder ? open : undefined}
      aria-current={selected ? 'page' : undefined}
      title={node.path}
      data-testid={isFolder ? 'file-tree-folder' : 'file-tree-file'}
      data-path={node.path}
      style={{ paddingLeft: `${0.5 + depth * 0.875}rem` }}
      className={cn(
        'flex w-full items-center gap-1.5 py-1 pr-2 text-left text-zinc-700 hover:bg-zinc-100',
        'focus-visible:bg-zinc-100 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-sky-500',
        selected && 'bg-sky-50 font-medium text-sky-900 hover:bg-sky-50',
      )}
    >
      <ChevronRight
        aria-hidden="true"
        className={cn(
          'size-3 shrink-0 text-zinc-400 transition-transform',
          open && 'rotate-90',
          !isFolder && 'invisible',
        )}
      />
      <Icon
        aria-hidden="true"
        className={cn('size-3.5 shrink-0', isFolder ? 'text-sky-600' : 'text-zinc-400')}
      />
      <span className="min-w-0 flex-1 truncate">{node.name}</span>
      <span className="shrink-0 text-[11px] text-zinc-400 tabular-nums">{formatBytes(node.size)}</span>
    </button>
  );
}
