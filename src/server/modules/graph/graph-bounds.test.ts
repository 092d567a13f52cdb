import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@/server/lib/logger.js';
import { commitFiles, makeRepo, type TempRepo } from '../workspace/test-repo.js';
import { GraphService } from './graph-service.js';
import { graphWarnings } from './graph-snapshot.js';

let temp: TempRepo;

beforeAll(async () => {
  temp = await makeRepo();
  await commitFiles(
    temp.repo,
    {
      'a.ts': "import './b';\nimport './huge';\n",
      'b.ts': "import './a';\n",
      'huge.ts': `import './a';\n${'export const x = 1;\n'.repeat(5000)}`,
      'deep.ts': `import './a';\nexport const d = ${'['.repeat(20_000)}${']'.repeat(20_000)};\n`,
      'latin1.js': Buffer.from("import './a';\n// caf\xe9\n", 'latin1').toString('latin1'),
      'unterminated.py': 'import os\ns = """never closed\nimport fake\n',
      'garbage.py': 'from from import import (((( ] \\\n',
      'z1.ts': "import './a';\n",
      'z2.ts': "import './a';\n",
    },
    'hostile files',
  );
});

afterAll(async () => {
  await temp.cleanup();
});

describe('bounds', () => {
  it('leaves files over the size limit and hostile ones as nodes without edges, and builds the rest', async () => {
    const service = new GraphService({
      dataDir: `${temp.root}/data1`,
      logger: createLogger('silent'),
      limits: { maxFileBytes: 50_000 },
    });
    const graph = await service.current({ id: 'p', repoPath: temp.repo }, 'main');
    expect(graph.sources.get('a.ts')?.targets).toEqual(['b.ts', 'huge.ts']);
    expect(graph.sources.get('huge.ts')).toMatchObject({
      targets: [],
      warning: expect.stringMatching(/larger than 50000 bytes/),
    });
    expect(graph.sources.get('unterminated.py')?.targets).toEqual([]);
    expect(graph.sources.get('garbage.py')?.targets).toEqual([]);
    expect(graph.sources.get('latin1.js')?.targets).toEqual(['a.ts']);
    // 20,000 nested brackets overflow oxc's native stack: its parser process dies, not the server,
    // and the files queued behind it are parsed by the next one.
    expect(graph.sources.get('deep.ts')).toMatchObject({
      targets: [],
      warning: expect.stringMatching(/crashed/),
    });
    expect(graph.sources.get('z1.ts')?.targets).toEqual(['a.ts']);
    expect(graph.sources.get('z2.ts')?.targets).toEqual(['a.ts']);
    service.close();
  });

  it('parses at most maxSourceFiles files, in path order, and says so', async () => {
    const service = new GraphService({
      dataDir: `${temp.root}/data2`,
      logger: createLogger('silent'),
      limits: { maxSourceFiles: 3 },
    });
    const graph = await service.current({ id: 'p', repoPath: temp.repo }, 'main');
    expect([...graph.sources.keys()].sort()).toEqual(['a.ts', 'b.ts', 'deep.ts']);
    expect(graphWarnings(graph)[0]).toMatch(/9 source files: only the first 3 were parsed/);
    service.close();
  });

  it('gives up a build that takes too long with GRAPH_UNAVAILABLE', async () => {
    const service = new GraphService({
      dataDir: `${temp.root}/data3`,
      logger: createLogger('silent'),
      buildTimeoutMs: 1,
    });
    await expect(service.current({ id: 'p', repoPath: temp.repo }, 'main')).rejects.toMatchObject({
      code: 'GRAPH_UNAVAILABLE',
    });
    service.close();
  });
});
