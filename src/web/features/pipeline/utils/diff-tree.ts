import type { DiffFile } from '@/contracts/diff';

export interface DiffTreeDir {
  type: 'dir';
  /** The directory's name; a chain of single-child directories is one node ("src/web/lib"). */
  name: string;
  /** Its full path, a key for its open/closed state. */
  path: string;
  children: DiffTreeNode[];
}

export interface DiffTreeFile {
  type: 'file';
  name: string;
  file: DiffFile;
}

export type DiffTreeNode = DiffTreeDir | DiffTreeFile;

interface Building {
  dirs: Map<string, Building>;
  files: DiffFile[];
}

function toNodes(at: Building, prefix: string): DiffTreeNode[] {
  const dirs = [...at.dirs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, child]): DiffTreeDir => {
      let path = prefix ? `${prefix}/${name}` : name;
      let label = name;
      let inner = child;
      // One directory holding only one directory reads better as one row.
      while (inner.files.length === 0 && inner.dirs.size === 1) {
        const [nextName, next] = [...inner.dirs.entries()][0]!;
        label = `${label}/${nextName}`;
        path = `${path}/${nextName}`;
        inner = next;
      }
      return { type: 'dir', name: label, path, children: toNodes(inner, path) };
    });
  const files = [...at.files]
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((file): DiffTreeFile => ({ type: 'file', name: file.path.split('/').at(-1) ?? file.path, file }));
  return [...dirs, ...files];
}

/** The changed files as a tree: directories first, then files, each by name. */
export function buildDiffTree(files: readonly DiffFile[]): DiffTreeNode[] {
  const root: Building = { dirs: new Map(), files: [] };
  for (const file of files) {
    const parts = file.path.split('/').filter(Boolean);
    let at = root;
    for (const part of parts.slice(0, -1)) {
      let next = at.dirs.get(part);
      if (!next) {
        next = { dirs: new Map(), files: [] };
        at.dirs.set(part, next);
      }
      at = next;
    }
    at.files.push(file);
  }
  return toNodes(root, '');
}

/** The files in the order the tree lists them. */
export function treeOrder(nodes: readonly DiffTreeNode[]): DiffFile[] {
  return nodes.flatMap((node) => (node.type === 'file' ? [node.file] : treeOrder(node.children)));
}
