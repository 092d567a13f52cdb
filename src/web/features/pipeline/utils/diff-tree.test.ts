import { describe, expect, it } from 'vitest';
import type { DiffFile } from '@/contracts/diff';
import { buildDiffTree, type DiffTreeNode, treeOrder } from './diff-tree';

const file = (path: string): DiffFile => ({
  path,
  oldPath: null,
  status: 'modified',
  language: 'text',
  binary: false,
  additions: 1,
  deletions: 0,
  patch: '',
  truncated: false,
  findings: [],
});

const shape = (nodes: DiffTreeNode[]): unknown[] =>
  nodes.map((node) => (node.type === 'dir' ? { [node.name]: shape(node.children) } : node.name));

describe('buildDiffTree', () => {
  it('lists directories before files, each by name, and folds single-child directory chains', () => {
    const files = [
      'README.md',
      'src/web/lib/a.ts',
      'src/web/lib/b.ts',
      'src/server/x.ts',
      'src/index.ts',
      'docs/z.md',
    ];
    const tree = buildDiffTree(files.map(file));
    expect(shape(tree)).toEqual([
      { docs: ['z.md'] },
      { src: [{ server: ['x.ts'] }, { 'web/lib': ['a.ts', 'b.ts'] }, 'index.ts'] },
      'README.md',
    ]);
    const src = tree[1];
    expect(src?.type === 'dir' && src.children[1]?.type === 'dir' && src.children[1].path).toBe(
      'src/web/lib',
    );
    expect(treeOrder(tree).map((f) => f.path)).toEqual([
      'docs/z.md',
      'src/server/x.ts',
      'src/web/lib/a.ts',
      'src/web/lib/b.ts',
      'src/index.ts',
      'README.md',
    ]);
  });
});
