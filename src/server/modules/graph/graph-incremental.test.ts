import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '@/server/lib/git.js';
import { createLogger } from '@/server/lib/logger.js';
import { commitFiles, head, makeRepo, type TempRepo } from '../workspace/test-repo.js';
import { type GraphRepo, GraphService } from './graph-service.js';
import type { GraphSnapshot } from './graph-snapshot.js';

let temp: TempRepo;
let service: GraphService;
let repo: GraphRepo;
let colds = 0;

/** What a caller can see of a graph: files, edges both ways, warnings. */
function comparable(graph: GraphSnapshot) {
  return {
    version: graph.version,
    files: [...graph.files.keys()].sort(),
    sources: [...graph.sources].map(([file, r]) => [file, r.targets, r.warning ?? null]).sort(),
    importedBy: [...graph.importedBy].map(([file, set]) => [file, [...set].sort()]).sort(),
    warnings: [...graph.warnings].sort(),
  };
}

/** The incremental graph of the head must equal a graph built from nothing. */
async function expectSameAsCold(): Promise<GraphSnapshot> {
  const incremental = await service.current(repo, 'main');
  const fresh = new GraphService({ dataDir: `${temp.root}/cold-${++colds}`, logger: createLogger('silent') });
  const cold = await fresh.current({ id: 'cold', repoPath: temp.repo }, 'main');
  expect(cold.stats.mode).toBe('cold');
  expect(incremental.stats.mode).toBe('incremental');
  expect(comparable(incremental)).toEqual(comparable(cold));
  await rm(`${temp.root}/cold-${colds}`, { recursive: true, force: true });
  return incremental;
}

const targets = (graph: GraphSnapshot, file: string) => graph.sources.get(file)?.targets;

beforeAll(async () => {
  temp = await makeRepo();
  repo = { id: 'p1', repoPath: temp.repo };
  await commitFiles(
    temp.repo,
    {
      'tsconfig.json':
        '{ "compilerOptions": { "paths": { "@/*": ["./src/*"], "@cfg": ["./src/config/settings.ts"] } } }',
      'package.json': '{ "name": "demo", "exports": { "./x": "./src/exported/impl.ts" } }',
      'src/b.ts': "import '@cfg';\nimport 'demo/x';\nimport 'react';\n",
      'src/a.ts':
        "import { t } from './thing';\nimport { l } from './later';\nimport { x } from '@/lib/x';\n",
      'src/thing/index.ts': 'export const t = 1;\n',
      'src/lib/x.ts': 'export const x = 1;\n',
      'other/lib/x.ts': 'export const x = 2;\n',
      'src/c.ts': "import './a';\n",
      'pkg/__init__.py': '',
      'pkg/m.py': 'from . import n\n',
    },
    'base',
  );
  service = new GraphService({ dataDir: `${temp.root}/data`, logger: createLogger('silent') });
  const first = await service.current(repo, 'main');
  expect(first.stats.mode).toBe('cold');
});

afterAll(async () => {
  service.close();
  await temp.cleanup();
});

describe('an incremental update', () => {
  it('after files are modified, parses only those and equals a cold build', async () => {
    await commitFiles(
      temp.repo,
      { 'src/c.ts': "import './a';\nimport '@/lib/x';\n", 'README.md': 'x' },
      'modify',
    );
    const graph = await expectSameAsCold();
    expect(graph.stats.parsed).toBe(1);
    expect(targets(graph, 'src/c.ts')).toEqual(['src/a.ts', 'src/lib/x.ts']);
  });

  it('after files are added, resolves again what they change (a file beside an index, a missing module)', async () => {
    await commitFiles(
      temp.repo,
      {
        'src/thing.ts': 'export const t = 2;\n',
        'src/later.ts': 'export const l = 1;\n',
        'pkg/n.py': '',
        // Named unlike their requests: the target of an exact tsconfig alias, of an exports entry.
        'src/config/settings.ts': '',
        'src/exported/impl.ts': '',
      },
      'add',
    );
    const graph = await expectSameAsCold();
    expect(graph.stats.parsed).toBe(5);
    expect(targets(graph, 'src/b.ts')).toEqual(['src/config/settings.ts', 'src/exported/impl.ts']);
    expect(targets(graph, 'src/a.ts')).toEqual(['src/later.ts', 'src/lib/x.ts', 'src/thing.ts']);
    expect(targets(graph, 'pkg/m.py')).toEqual(['pkg/n.py']);
  });

  it('after files are deleted, falls back (index file) and drops the edges to them', async () => {
    await git(['rm', '--quiet', 'src/thing.ts', 'src/lib/x.ts', 'pkg/n.py', 'src/exported/impl.ts'], {
      cwd: temp.repo,
    });
    await git(['commit', '--quiet', '-m', 'delete'], { cwd: temp.repo });
    const graph = await expectSameAsCold();
    expect(targets(graph, 'src/a.ts')).toEqual(['src/later.ts', 'src/thing/index.ts']);
    expect(targets(graph, 'pkg/m.py')).toEqual(['pkg/__init__.py']);
    expect(graph.importedBy.has('src/lib/x.ts')).toBe(false);
    expect(targets(graph, 'src/b.ts')).toEqual(['src/config/settings.ts']);
  });

  it('after a rename, moves the node and its edges', async () => {
    await git(['mv', 'src/a.ts', 'src/a2.ts'], { cwd: temp.repo });
    await git(['commit', '--quiet', '-m', 'rename'], { cwd: temp.repo });
    const graph = await expectSameAsCold();
    expect(graph.sources.has('src/a.ts')).toBe(false);
    expect(targets(graph, 'src/a2.ts')).toEqual(['src/later.ts', 'src/thing/index.ts']);
    expect(targets(graph, 'src/c.ts')).toEqual([]);
  });

  it('after tsconfig paths change, resolves every request again', async () => {
    await commitFiles(
      temp.repo,
      {
        'tsconfig.json':
          '{ "compilerOptions": { "paths": { "@/*": ["./other/*"], "@cfg": ["./src/config/settings.ts"] } } }',
      },
      'paths',
    );
    const graph = await expectSameAsCold();
    expect(graph.stats.parsed).toBe(0);
    expect(targets(graph, 'src/c.ts')).toEqual(['other/lib/x.ts']);
  });

  it('from an older graph to a head several commits on, in one step', async () => {
    const before = await head(temp.repo);
    await commitFiles(temp.repo, { 'src/d.ts': "import './c';\n" }, 'one');
    await commitFiles(temp.repo, { 'src/c.ts': "import './d';\n" }, 'two');
    await git(['rm', '--quiet', 'src/later.ts'], { cwd: temp.repo });
    await git(['commit', '--quiet', '-m', 'three'], { cwd: temp.repo });
    expect((await service.at(repo, 'main', before)).version).toBe(before);
    const graph = await expectSameAsCold();
    expect(targets(graph, 'src/c.ts')).toEqual(['src/d.ts']);
    expect(targets(graph, 'src/d.ts')).toEqual(['src/c.ts']);
  });

  it('serves callers of a head still being built from that one build', async () => {
    await commitFiles(temp.repo, { 'src/e.ts': "import './d';\n" }, 'e');
    const commit = await head(temp.repo);
    const [one, two] = await Promise.all([service.at(repo, 'main', commit), service.current(repo, 'main')]);
    expect(one).toBe(two);
    expect(one.version).toBe(commit);
  });
});
