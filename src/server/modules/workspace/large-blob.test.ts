import { execFile } from 'node:child_process';
import { truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBlob } from '@/server/lib/git-objects.js';
import { createLogger } from '@/server/lib/logger.js';
import { GraphService } from '../graph/graph-service.js';
import { readFilesForContext, repoMap } from './context.js';
import { diffByFile, diffRange, fileVersions } from './diff.js';
import { MAX_FILE_BYTES, readRepositoryFile } from './repository.js';
import { commitFiles, makeRepo, type TempRepo } from './test-repo.js';

const run = promisify(execFile);

const BIG = 200_000_000;
/** The most the server's memory may grow by while every reader below meets the 200 MB file. */
const MAX_RSS_GROWTH = 100 * 1024 * 1024;

/**
 * Issue 23, item 5: a file of 200 MB in a repository (a pushed `yes` output: text, ~200 KB
 * compressed) costs the server's readers their own cap, never its size. Made without a checkout:
 * the blob is hashed from a pipe, then put in a tree and a commit with mktree and commit-tree.
 */
describe('a 200 MB file in a repository', () => {
  let temp: TempRepo;
  let base: string;
  let big: string;
  let blob: string;
  let graphs: GraphService;
  let rssBefore: number;

  const sh = async (script: string) => (await run('sh', ['-c', script], { cwd: temp.repo })).stdout.trim();

  beforeAll(async () => {
    temp = await makeRepo();
    base = await commitFiles(
      temp.repo,
      { 'src/a.ts': "import './b';\n", 'src/b.ts': 'export {};\n' },
      'Sources',
    );
    graphs = new GraphService({ dataDir: path.join(temp.root, 'graphs'), logger: createLogger('silent') });
    // The graph of the base first, so that the move to the big commit is an incremental update.
    expect((await graphs.current({ id: 'p', repoPath: temp.repo }, 'main')).stats.mode).toBe('cold');
    blob = await sh(`yes | head -c ${BIG} | git hash-object -w --stdin`);
    const tree = await sh(`{ git ls-tree ${base}; printf '100644 blob ${blob}\\tbig.ts\\n'; } | git mktree`);
    big = await sh(`git -c user.name=T -c user.email=t@t commit-tree ${tree} -p ${base} -m Big`);
    await sh(`git update-ref refs/heads/main ${big}`);
    global.gc?.();
    rssBefore = process.memoryUsage().rss;
  }, 120_000);

  afterAll(async () => {
    graphs?.close();
    await temp?.cleanup();
  });

  it('is a node of the graph without being read, incrementally and from nothing', async () => {
    const incremental = await graphs.current({ id: 'p', repoPath: temp.repo }, 'main');
    expect(incremental.stats.mode).toBe('incremental');
    expect(incremental.files.get('big.ts')).toBe(BIG);
    expect(incremental.sources.get('big.ts')?.warning).toMatch(/larger than \d+ bytes: not parsed/);
    const fresh = new GraphService({ dataDir: path.join(temp.root, 'cold'), logger: createLogger('silent') });
    const cold = await fresh.current({ id: 'q', repoPath: temp.repo }, 'main');
    fresh.close();
    expect(cold.files.get('big.ts')).toBe(BIG);
    expect(cold.sources.get('big.ts')?.warning).toMatch(/not parsed/);
    expect(cold.sources.get('src/a.ts')?.targets).toEqual(['src/b.ts']);
  });

  it('is a binary change in a diff: no line counts, no patch, no versions read', async () => {
    const files = await diffByFile(temp.repo, base, big);
    expect(files).toEqual([
      expect.objectContaining({ path: 'big.ts', status: 'added', binary: true, patch: '', additions: 0 }),
    ]);
    const range = await diffRange(temp.repo, base, big);
    expect(range.patch.length).toBeLessThan(1000);
    const versions = await fileVersions(temp.repo, base, big, 'big.ts', 1024 * 1024, files);
    expect(versions).toMatchObject({ before: null, after: '', patch: '' });
  });

  it('is read up to the file view’s cap, and marked truncated', async () => {
    const file = await readRepositoryFile(temp.repo, 'main', 'big.ts');
    expect(file).toMatchObject({ size: BIG, isText: true, truncated: true });
    expect(file.content.length).toBe(MAX_FILE_BYTES);
    const read = await readBlob(temp.repo, blob, 64 * 1024);
    expect(read.truncated).toBe(true);
    expect(read.data.length).toBe(64 * 1024);
  });

  it('is read up to the context’s budget from a working tree, and listed by size in the map', async () => {
    // A sparse file: text first (so it is not taken for binary), then 200 MB of holes.
    const file = path.join(temp.repo, 'big.ts');
    await writeFile(file, 'y\n'.repeat(64 * 1024));
    await truncate(file, BIG);
    const [context] = await readFilesForContext(temp.repo, ['big.ts'], 10_000);
    expect(context).toMatchObject({ path: 'big.ts', truncated: true });
    expect(context?.content.length).toBe(10_000);
    expect(await repoMap(temp.repo, 10_000)).toContain('big.ts (190.7 MB)');
  });

  it('leaves the server’s memory where it was (each reader holds its cap at most)', () => {
    global.gc?.();
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(MAX_RSS_GROWTH);
  });
});
