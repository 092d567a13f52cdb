import { describe, expect, it } from 'vitest';
import type { GraphResponse } from '@/contracts/graph';
import { importersOf, importsOf, nodeSize, searchFiles, toGraphData } from './graph-data';

const answer = (over: Partial<GraphResponse> = {}): GraphResponse => ({
  nodes: ['src/b.ts', 'src/a.ts', 'lib/c.py', 'README.md'].map((id) => ({ id, type: 'file' })),
  edges: [
    { source: 'src/a.ts', target: 'src/b.ts', type: 'import' },
    { source: 'src/b.ts', target: 'lib/c.py', type: 'import' },
    { source: 'src/a.ts', target: 'lib/c.py', type: 'import' },
  ],
  locks: {},
  version: 'abc123',
  warnings: [],
  ...over,
});

describe('toGraphData', () => {
  it('lists every file once in path order, named by its file name, with what it imports and what imports it', () => {
    const data = toGraphData(answer());
    expect(data.version).toBe('abc123');
    expect(data.nodes.map((node) => [node.id, node.label])).toEqual([
      ['README.md', 'README.md'],
      ['lib/c.py', 'c.py'],
      ['src/a.ts', 'a.ts'],
      ['src/b.ts', 'b.ts'],
    ]);
    expect(importsOf(data, 'src/a.ts')).toEqual(['lib/c.py', 'src/b.ts']);
    expect(importersOf(data, 'lib/c.py')).toEqual(['src/a.ts', 'src/b.ts']);
    expect(importsOf(data, 'README.md')).toEqual([]);
    expect(importersOf(data, 'unknown.ts')).toEqual([]);
  });

  it('sizes a file by how connected it is', () => {
    const data = toGraphData(answer());
    const size = (id: string) => data.nodes.find((node) => node.id === id)?.size;
    expect(size('README.md')).toBe(nodeSize(0));
    expect(size('lib/c.py')).toBe(nodeSize(2));
    expect(nodeSize(2)).toBeGreaterThan(nodeSize(0));
    expect(nodeSize(10_000)).toBe(18);
    // Big graphs draw smaller files.
    expect(nodeSize(0, 5_000)).toBe(1);
    expect(nodeSize(4, 2_000)).toBe(nodeSize(4) / 2);
  });

  it('drops edges naming a file the answer does not list, self-imports and repeats', () => {
    const data = toGraphData(
      answer({
        edges: [
          { source: 'src/a.ts', target: 'src/b.ts', type: 'import' },
          { source: 'src/a.ts', target: 'src/b.ts', type: 'import' },
          { source: 'src/a.ts', target: 'src/a.ts', type: 'import' },
          { source: 'src/a.ts', target: 'gone.ts', type: 'import' },
          { source: 'ghost.ts', target: 'src/b.ts', type: 'import' },
        ],
      }),
    );
    expect(data.edges).toEqual([{ source: 'src/a.ts', target: 'src/b.ts' }]);
    expect(importersOf(data, 'src/b.ts')).toEqual(['src/a.ts']);
  });

  it('places files the same way for the same answer, a folder’s files together', () => {
    const ids = [
      ...Array.from({ length: 20 }, (_, i) => `app/f${i}.ts`),
      ...Array.from({ length: 20 }, (_, i) => `lib/g${i}.ts`),
    ];
    const response = answer({ nodes: ids.map((id) => ({ id, type: 'file' })), edges: [] });
    const first = toGraphData(response).nodes;
    expect(toGraphData(response).nodes).toEqual(first);
    const at = new Map(first.map((node) => [node.id, node]));
    const distance = (a: string, b: string) => {
      const p = at.get(a);
      const q = at.get(b);
      if (!p || !q) throw new Error('missing node');
      return Math.hypot(p.x - q.x, p.y - q.y);
    };
    const positions = new Set(first.map((node) => `${node.x},${node.y}`));
    expect(positions.size).toBe(first.length);
    // Any two files of one folder start closer than a file of each folder's centre.
    expect(distance('app/f0.ts', 'app/f19.ts')).toBeLessThan(distance('app/f0.ts', 'lib/g0.ts'));
  });

  it('passes the warnings on, and takes an empty repository', () => {
    expect(toGraphData(answer({ warnings: ['x.ts: does not parse'] })).warnings).toEqual([
      'x.ts: does not parse',
    ]);
    const empty = toGraphData(answer({ nodes: [], edges: [] }));
    expect(empty.nodes).toEqual([]);
    expect(empty.edges).toEqual([]);
  });
});

describe('searchFiles', () => {
  const files = [
    'src/auth/index.ts',
    'src/auth.ts',
    'src/oauth.ts',
    'lib/authors.py',
    'docs/x.md',
    'AUTH.md',
  ];

  it('ranks an exact path, then names starting with the text, names containing it, then folders', () => {
    expect(searchFiles(files, 'auth')).toEqual([
      'AUTH.md',
      'lib/authors.py',
      'src/auth.ts',
      'src/oauth.ts',
      'src/auth/index.ts',
    ]);
    expect(searchFiles(files, 'src/auth.ts')[0]).toBe('src/auth.ts');
    expect(searchFiles(files, '  OAUTH ')).toEqual(['src/oauth.ts']);
  });

  it('finds nothing for blank text and stops at the limit', () => {
    expect(searchFiles(files, '  ')).toEqual([]);
    expect(searchFiles(files, 'nothing-like-this')).toEqual([]);
    expect(searchFiles(files, 'a', 2)).toHaveLength(2);
  });
});
