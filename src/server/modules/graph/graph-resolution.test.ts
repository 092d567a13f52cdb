import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@/server/lib/logger.js';
import { commitFiles, makeRepo, type TempRepo } from '../workspace/test-repo.js';
import { GraphService } from './graph-service.js';
import { type GraphSnapshot, graphWarnings } from './graph-snapshot.js';

let temp: TempRepo;
let service: GraphService;
let graph: GraphSnapshot;

const importsOf = (file: string) => graph.sources.get(file)?.targets ?? [];

beforeAll(async () => {
  temp = await makeRepo();
  await commitFiles(
    temp.repo,
    {
      'package.json': JSON.stringify({
        name: 'demo',
        imports: { '#internal/*': './src/internal/*.ts' },
        exports: { './public': './src/public.ts' },
      }),
      'tsconfig.base.json': '{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["./src/*"] } } }',
      // JSONC: comments and trailing commas, as tsc reads them.
      'tsconfig.json': `{
        // the base holds the paths
        "extends": "./tsconfig.base.json",
        "compilerOptions": { "strict": true, },
      }`,
      'src/index.ts': [
        "import { a } from '@/lib/a.js';",
        "import type { T } from './types';",
        "import './side-effect';",
        "import React from 'react';",
        "import fs from 'node:fs';",
        "export * from './util';",
        "export { b } from './b';",
        "export * as ns from './ns.js';",
        "import secret from '#internal/secret';",
        "import pub from 'demo/public';",
        'const lazy = () => import("./lazy");',
        'const tpl = () => import(`./tpl`);',
        'const computed = (name: string) => import(name);',
        'export const all = [a, lazy, tpl, computed, secret, pub, fs, React];',
      ].join('\n'),
      'src/lib/a.ts': 'export const a = 1;\n',
      'src/types.ts': 'export type T = string;\n',
      'src/side-effect.ts': 'globalThis.x = 1;\n',
      'src/util/index.ts': 'export const u = 1;\n',
      'src/b.tsx': 'export const b = <div />;\n',
      'src/ns.ts': 'export const n = 1;\n',
      'src/internal/secret.ts': 'export default 1;\n',
      'src/public.ts': 'export default 2;\n',
      'src/lazy.ts': 'export default 3;\n',
      'src/tpl.ts': 'export default 4;\n',
      'src/cjs.cjs':
        "const dep = require('./dep.cjs');\nconst data = require('./data.json');\nmodule.exports = { dep, data };\n",
      'src/dep.cjs': 'module.exports = 1;\n',
      'src/data.json': '{"x": 1}\n',
      'src/esm.mjs': "import d from './dep.mjs';\nexport default d;\n",
      'src/dep.mjs': 'export default 1;\n',
      'src/legacy.ts': "import dep = require('./legacy-dep');\nexport = dep;\n",
      'src/legacy-dep.ts': 'export = 1;\n',
      'src/app.jsx': "import { b } from './b';\nexport const App = () => <p>{b}</p>;\n",
      'src/escaped.ts': "export const e = import('./lazy\\u002ets');\n",
      'src/broken.ts': "import { a } from './lib/a';\nexport const = ;\n",
      'src/binary.ts': Buffer.from([0x69, 0x6d, 0, 0x70]).toString('latin1'),
      // A package whose tsconfig extends an installed package (not in git): its own paths still apply.
      'packages/app/tsconfig.json': JSON.stringify({
        extends: '@tsconfig/node20/tsconfig.json',
        compilerOptions: { baseUrl: '.', paths: { '~/*': ['./src/*'] } },
      }),
      'packages/app/src/main.ts':
        "import { x } from '~/x';\nimport { a } from '../../../src/lib/a';\nexport { x, a };\n",
      'packages/app/src/x.ts': 'export const x = 1;\n',
      // Python
      'pkg/__init__.py': 'from .mod import f\n',
      'pkg/mod.py': 'def f():\n    return 1\n',
      'pkg/sub/__init__.py': 'thing = 1\n',
      'pkg/sub/deep.py': [
        'from ..mod import f',
        'from .. import mod',
        'from . import thing',
        'import pkg.sub',
        'import os, sys',
        's = "import fake_module"  # import other',
        '"""',
        'import in_a_docstring',
        '"""',
        'def later():',
        '    from pkg import (',
        '        mod as m,',
        '        sub,',
        '    )',
        '    return m, sub',
        'try: import pkg.missing.deeper',
        'except ImportError: pass',
      ].join('\n'),
      'src/app/__init__.py': '',
      'src/app/util.py': 'X = 1\n',
      'src/app/main.py': 'import app.util\nfrom app import util as u\nfrom app.util import X\n',
      'tools/run.py': 'import helper\n',
      'tools/helper.py': '',
    },
    'a project',
  );
  service = new GraphService({
    dataDir: `${temp.root}/data`,
    logger: createLogger('silent'),
    limits: { maxFileBytes: 64 * 1024 },
  });
  graph = await service.current({ id: 'p1', repoPath: temp.repo }, 'main');
});

afterAll(async () => {
  service.close();
  await temp.cleanup();
});

describe('JS/TS imports', () => {
  it('follow tsconfig paths through extends, .js written for .ts, index files, type imports and re-exports', () => {
    expect(importsOf('src/index.ts')).toEqual(
      expect.arrayContaining([
        'src/lib/a.ts',
        'src/types.ts',
        'src/side-effect.ts',
        'src/util/index.ts',
        'src/b.tsx',
        'src/ns.ts',
      ]),
    );
  });

  it('follow package.json imports and exports (self-reference) inside the repository', () => {
    expect(importsOf('src/index.ts')).toEqual(
      expect.arrayContaining(['src/internal/secret.ts', 'src/public.ts']),
    );
  });

  it('count import() with a string or a plain template, and not a computed one', () => {
    expect(importsOf('src/index.ts')).toEqual(expect.arrayContaining(['src/lazy.ts', 'src/tpl.ts']));
    expect(importsOf('src/escaped.ts')).toEqual(['src/lazy.ts']);
  });

  it('leave packages and builtins out of the graph', () => {
    expect(importsOf('src/index.ts')).toHaveLength(10);
    const nodes = [...graph.sources.keys(), ...graph.importedBy.keys()];
    expect(nodes.some((node) => node.includes('react') || node.includes('node_modules'))).toBe(false);
  });

  it('read CommonJS require(), ESM .mjs, TS import = require() and JSX', () => {
    expect(importsOf('src/cjs.cjs')).toEqual(['src/data.json', 'src/dep.cjs']);
    expect(importsOf('src/esm.mjs')).toEqual(['src/dep.mjs']);
    expect(importsOf('src/legacy.ts')).toEqual(['src/legacy-dep.ts']);
    expect(importsOf('src/app.jsx')).toEqual(['src/b.tsx']);
  });

  it('apply a package tsconfig whose extends names an installed package, with a warning', () => {
    expect(importsOf('packages/app/src/main.ts')).toEqual(['packages/app/src/x.ts', 'src/lib/a.ts']);
    expect(graph.warnings.join('\n')).toMatch(/packages\/app\/tsconfig.json: extends "@tsconfig\/node20/);
  });

  it('make a file that does not parse, or is not text, a node without edges and a warning', () => {
    expect(graph.sources.get('src/broken.ts')?.targets).toEqual([]);
    expect(graph.sources.get('src/broken.ts')?.warning).toMatch(/does not parse/);
    expect(graph.sources.get('src/binary.ts')?.warning).toMatch(/not a text file/);
    expect(graphWarnings(graph).some((w) => w.startsWith('src/broken.ts: does not parse'))).toBe(true);
  });

  it('answers neighbours both ways', async () => {
    const answer = await service.neighbours({ id: 'p1', repoPath: temp.repo }, 'main', [
      'src/b.tsx',
      'nope.ts',
    ]);
    expect(answer['src/b.tsx']).toEqual({ imports: [], importedBy: ['src/app.jsx', 'src/index.ts'] });
    expect(answer['nope.ts']).toEqual({ imports: [], importedBy: [] });
  });
});

describe('Python imports', () => {
  it('resolve relative imports, packages (__init__.py) and absolute ones, anywhere in the file', () => {
    expect(importsOf('pkg/sub/deep.py')).toEqual(['pkg/__init__.py', 'pkg/mod.py', 'pkg/sub/__init__.py']);
    expect(importsOf('pkg/__init__.py')).toEqual(['pkg/mod.py']);
  });

  it('resolve absolute imports against a src root and the script folder', () => {
    expect(importsOf('src/app/main.py')).toEqual(['src/app/util.py']);
    expect(importsOf('tools/run.py')).toEqual(['tools/helper.py']);
  });
});
