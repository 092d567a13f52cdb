import type { TreeEntry } from '@/contracts/projects';

export interface FileNode {
  kind: 'file';
  name: string;
  path: string;
  size: number;
}

export interface FolderNode {
  kind: 'folder';
  name: string;
  path: string;
  /** Total size of the files below. */
  size: number;
  children: TreeNode[];
}

export type TreeNode = FileNode | FolderNode;

function sortNodes(nodes: TreeNode[]): void {
  nodes.sort((a, b) =>
    a.kind === b.kind
      ? a.name.localeCompare(b.name, undefined, { numeric: true })
      : a.kind === 'folder'
        ? -1
        : 1,
  );
  for (const node of nodes) if (node.kind === 'folder') sortNodes(node.children);
}

/** Turns the flat list of paths ('src/a.ts') into folders and files, folders first, by name. */
export function buildTree(entries: readonly TreeEntry[]): TreeNode[] {
  const root: FolderNode = { kind: 'folder', name: '', path: '', size: 0, children: [] };
  const folders = new Map<string, FolderNode>([['', root]]);

  for (const entry of entries) {
    const parts = entry.path.split('/').filter(Boolean);
    let parent = root;
    parent.size += entry.size;
    for (const [index, name] of parts.entries()) {
      const path = parts.slice(0, index + 1).join('/');
      if (index === parts.length - 1) {
        parent.children.push({ kind: 'file', name, path, size: entry.size });
        break;
      }
      let folder = folders.get(path);
      if (!folder) {
        folder = { kind: 'folder', name, path, size: 0, children: [] };
        folders.set(path, folder);
        parent.children.push(folder);
      }
      folder.size += entry.size;
      parent = folder;
    }
  }
  sortNodes(root.children);
  return root.children;
}

/** 'a/b/c.ts' → ['a', 'a/b']: the folders to open so that a file shows. */
export function ancestorsOf(path: string): string[] {
  const parts = path.split('/');
  return parts.slice(0, -1).map((_, index) => parts.slice(0, index + 1).join('/'));
}
