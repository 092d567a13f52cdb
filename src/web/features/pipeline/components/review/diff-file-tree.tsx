import { ChevronDown, ChevronRight, Folder } from 'lucide-react';
import { useMemo, useState } from 'react';
import type { DiffFile, DiffFileStatus } from '@/contracts/diff';
import { FINDING_SEVERITIES } from '@/contracts/pipeline';
import { cn } from '@/web/lib/cn';
import { buildDiffTree, type DiffTreeNode } from '../../utils/diff-tree';
import { bySeverity, countBySeverity } from '../../utils/pin-notes';
import { SEVERITY, SeverityIcon } from './severity';

const STATUS_LOOK: Record<DiffFileStatus, { letter: string; label: string; className: string }> = {
  added: { letter: 'A', label: 'Added', className: 'bg-emerald-100 text-emerald-800' },
  modified: { letter: 'M', label: 'Modified', className: 'bg-sky-100 text-sky-800' },
  deleted: { letter: 'D', label: 'Deleted', className: 'bg-red-100 text-red-800' },
  renamed: { letter: 'R', label: 'Renamed', className: 'bg-violet-100 text-violet-800' },
};

export function FileStatusBadge({ status }: { status: DiffFileStatus }) {
  const look = STATUS_LOOK[status];
  return (
    <abbr
      title={look.label}
      className={cn(
        'inline-flex size-4 shrink-0 items-center justify-center rounded text-[10px] font-semibold no-underline',
        look.className,
      )}
    >
      {look.letter}
    </abbr>
  );
}

export function LineStats({ additions, deletions }: { additions: number; deletions: number }) {
  return (
    <span className="shrink-0 font-mono text-[11px] tabular-nums">
      <span className="text-emerald-700">+{additions}</span>{' '}
      <span className="text-red-700">−{deletions}</span>
    </span>
  );
}

interface DiffFileTreeProps {
  files: readonly DiffFile[];
  selectedPath: string | null;
  onSelect: (path: string) => void;
  /** A finding under a file was chosen: show that file at the finding's line. */
  onFinding: (path: string, line: number) => void;
}

/** The changed files by directory (each directory folds), with their status, line counts and findings. */
export function DiffFileTree({ files, selectedPath, onSelect, onFinding }: DiffFileTreeProps) {
  const nodes = useMemo(() => buildDiffTree(files), [files]);
  const [closed, setClosed] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (path: string) =>
    setClosed((current) => {
      const next = new Set(current);
      if (!next.delete(path)) next.add(path);
      return next;
    });
  const props = { selectedPath, onSelect, onFinding, closed, toggle };
  return (
    <nav aria-label="Changed files" data-testid="diff-tree">
      <TreeLevel nodes={nodes} depth={0} {...props} />
    </nav>
  );
}

interface LevelProps extends Omit<DiffFileTreeProps, 'files'> {
  nodes: readonly DiffTreeNode[];
  depth: number;
  closed: ReadonlySet<string>;
  toggle: (path: string) => void;
}

const indent = (depth: number) => ({ paddingLeft: `${0.5 + depth * 0.875}rem` });

function TreeLevel({ nodes, depth, ...props }: LevelProps) {
  return (
    <ul className="flex flex-col">
      {nodes.map((node) =>
        node.type === 'dir' ? (
          <li key={`d:${node.path}`} data-testid="diff-tree-dir" data-path={node.path}>
            <button
              type="button"
              aria-expanded={!props.closed.has(node.path)}
              onClick={() => props.toggle(node.path)}
              className="flex w-full items-center gap-1 rounded py-0.5 pr-2 text-left text-xs text-zinc-600 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500"
              style={indent(depth)}
            >
              {props.closed.has(node.path) ? (
                <ChevronRight aria-hidden="true" className="size-3.5 shrink-0" />
              ) : (
                <ChevronDown aria-hidden="true" className="size-3.5 shrink-0" />
              )}
              <Folder aria-hidden="true" className="size-3.5 shrink-0 text-zinc-400" />
              <span className="truncate font-mono">{node.name}</span>
            </button>
            {!props.closed.has(node.path) && <TreeLevel nodes={node.children} depth={depth + 1} {...props} />}
          </li>
        ) : (
          <FileNode key={`f:${node.file.path}`} file={node.file} name={node.name} depth={depth} {...props} />
        ),
      )}
    </ul>
  );
}

function FileNode({
  file,
  name,
  depth,
  selectedPath,
  onSelect,
  onFinding,
}: { file: DiffFile; name: string } & Omit<LevelProps, 'nodes'>) {
  const counts = countBySeverity(file.findings);
  const selected = file.path === selectedPath;
  const findings = [...file.findings].sort(bySeverity);
  return (
    <li data-testid="diff-tree-file" data-path={file.path} data-status={file.status}>
      <button
        type="button"
        aria-current={selected ? 'true' : undefined}
        onClick={() => onSelect(file.path)}
        title={file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}
        className={cn(
          'flex w-full items-center gap-1.5 rounded py-0.5 pr-2 text-left text-xs hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500',
          selected && 'bg-sky-50 ring-1 ring-sky-200 hover:bg-sky-50',
        )}
        style={indent(depth)}
      >
        <FileStatusBadge status={file.status} />
        <span className="min-w-0 flex-1 truncate font-mono text-zinc-800">{name}</span>
        {FINDING_SEVERITIES.filter((severity) => counts[severity] > 0).map((severity) => (
          <span
            key={severity}
            className={cn('flex items-center gap-0.5 text-[11px] tabular-nums', SEVERITY[severity].text)}
            data-testid={`diff-tree-count-${severity}`}
            title={`${counts[severity]} ${SEVERITY[severity].label.toLowerCase()} finding(s)`}
          >
            <SeverityIcon severity={severity} className="size-3" />
            {counts[severity]}
          </span>
        ))}
        {file.binary ? (
          <span className="text-[11px] text-zinc-400">binary</span>
        ) : (
          <LineStats additions={file.additions} deletions={file.deletions} />
        )}
      </button>
      {findings.length > 0 && (
        <ul className="flex flex-col">
          {findings.map((finding, index) => (
            // Findings have no id; their order is stable for one review.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above.
            <li key={index}>
              <button
                type="button"
                onClick={() => onFinding(file.path, finding.line)}
                className="flex w-full items-center gap-1.5 rounded py-0.5 pr-2 text-left text-[11px] text-zinc-600 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-sky-500"
                style={indent(depth + 1.5)}
                data-testid="diff-tree-finding"
                data-severity={finding.severity}
                data-line={finding.line}
              >
                <SeverityIcon severity={finding.severity} className="size-3" />
                <span className="shrink-0 font-mono text-zinc-500">
                  {finding.line > 0 ? `L${finding.line}` : 'file'}
                </span>
                <span className="min-w-0 truncate">{finding.message}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
