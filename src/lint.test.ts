import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The house rules of docs/architecture.md ("Conventions") are checked by `npm run lint` (biome.json).
 * Each sample below breaks exactly one rule; planted in a scratch copy of the tree, biome must
 * name that rule at that file, and the tree without samples must lint clean.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIOME = path.join(ROOT, 'node_modules/@biomejs/biome/bin/biome');

interface Sample {
  file: string;
  source: string;
  rule: string;
  severity: 'error' | 'warning';
}

const restricted = 'lint/style/noRestrictedImports';

const SAMPLES: Record<string, Sample> = {
  'a feature imports another feature by the alias': {
    file: 'src/web/features/board/components/lint-sample-alias.ts',
    source:
      "import { useSSE } from '@/web/features/pipeline/sse/use-sse';\n\nexport const sample = useSSE;\n",
    rule: restricted,
    severity: 'error',
  },
  'a feature imports another feature by a relative path': {
    file: 'src/web/features/board/components/lint-sample-relative.ts',
    source: "import { useSSE } from '../../pipeline/sse/use-sse';\n\nexport const sample = useSSE;\n",
    rule: restricted,
    severity: 'error',
  },
  'shared web code imports a feature': {
    file: 'src/web/lib/lint-sample.ts',
    source:
      "import { useSSE } from '@/web/features/pipeline/sse/use-sse';\n\nexport const sample = useSSE;\n",
    rule: restricted,
    severity: 'error',
  },
  'the web app imports a server type': {
    file: 'src/web/app/lint-sample-server.ts',
    source: "import type { AppDeps } from '@/server/deps.js';\n\nexport type Sample = AppDeps;\n",
    rule: restricted,
    severity: 'error',
  },
  'a feature imports the server by the alias': {
    file: 'src/web/features/board/components/lint-sample-server.ts',
    source: "import { AppError } from '@/server/lib/errors.js';\n\nexport const sample = AppError;\n",
    rule: restricted,
    severity: 'error',
  },
  'shared web code imports the server by a relative path': {
    file: 'src/web/lib/lint-sample-server.ts',
    source: "import { AppError } from '../../server/lib/errors.js';\n\nexport const sample = AppError;\n",
    rule: restricted,
    severity: 'error',
  },
  'a contract imports drizzle-orm': {
    file: 'src/contracts/lint-sample-drizzle.ts',
    source: "import { eq } from 'drizzle-orm';\n\nexport const sample = eq;\n",
    rule: restricted,
    severity: 'error',
  },
  'a contract imports a server type': {
    file: 'src/contracts/lint-sample-server.ts',
    source: "import type { Db } from '@/server/db/client.js';\n\nexport type Sample = Db;\n",
    rule: restricted,
    severity: 'error',
  },
  'a contract imports a node builtin': {
    file: 'src/contracts/lint-sample-node.ts',
    source: "import path from 'node:path';\n\nexport const sample = path.sep;\n",
    rule: restricted,
    severity: 'error',
  },
  'a contract imports the web': {
    file: 'src/contracts/lint-sample-web.ts',
    source: "import { cn } from '@/web/lib/cn';\n\nexport const sample = cn;\n",
    rule: restricted,
    severity: 'error',
  },
  "a module imports another module's repo": {
    file: 'src/server/modules/coordination/lint-sample-repo.ts',
    source:
      "import { findOwnedProject } from '../projects/projects.repo.js';\n\nexport const sample = findOwnedProject;\n",
    rule: restricted,
    severity: 'error',
  },
  "a module imports another module's repo by the alias": {
    file: 'src/server/modules/pipeline/lint-sample-repo-alias.ts',
    source:
      "import { eventsOfRun } from '@/server/modules/events/events.repo.js';\n\nexport const sample = eventsOfRun;\n",
    rule: restricted,
    severity: 'error',
  },
  "a module's subfolder imports another module's repo": {
    file: 'src/server/modules/pipeline/agents/lint-sample-repo.ts',
    source:
      "import type { ProjectRow } from '../../projects/projects.repo.js';\n\nexport type Sample = ProjectRow;\n",
    rule: restricted,
    severity: 'error',
  },
  "a module's test imports another module's repo": {
    file: 'src/server/modules/coordination/lint-sample-repo.test.ts',
    source:
      "import { defaultBranchOf } from '../projects/projects.repo.js';\n\nexport const sample = defaultBranchOf;\n",
    rule: restricted,
    severity: 'error',
  },
  'a route imports a repo': {
    file: 'src/server/modules/tasks/lint-sample-repo.routes.ts',
    source: "import { maxPosition } from './tasks.repo.js';\n\nexport const sample = maxPosition;\n",
    rule: restricted,
    severity: 'error',
  },
  'a route imports drizzle-orm': {
    file: 'src/server/modules/tasks/lint-sample-drizzle.routes.ts',
    source: "import { eq } from 'drizzle-orm';\n\nexport const sample = eq;\n",
    rule: restricted,
    severity: 'error',
  },
  'a route imports the db client': {
    file: 'src/server/modules/tasks/lint-sample-db.routes.ts',
    source: "import type { Db } from '@/server/db/client.js';\n\nexport type Sample = Db;\n",
    rule: restricted,
    severity: 'error',
  },
  'module logic imports hono': {
    file: 'src/server/modules/tasks/lint-sample-hono.ts',
    source: "import { Hono } from 'hono';\n\nexport const sample = new Hono();\n",
    rule: restricted,
    severity: 'error',
  },
  'module logic in a subfolder imports hono': {
    file: 'src/server/modules/pipeline/agents/lint-sample-hono.ts',
    source: "import { Hono } from 'hono';\n\nexport const sample = new Hono();\n",
    rule: restricted,
    severity: 'error',
  },
  'module logic imports AppDeps': {
    file: 'src/server/modules/tasks/lint-sample-deps.ts',
    source: "import type { AppDeps } from '@/server/deps.js';\n\nexport type Sample = AppDeps;\n",
    rule: restricted,
    severity: 'error',
  },
  'process.env read outside env.ts': {
    file: 'src/server/lib/lint-sample-env.ts',
    source: 'export const sample = process.env.PORT;\n',
    rule: 'lint/style/noProcessEnv',
    severity: 'error',
  },
  'a cycle of type-only imports': {
    file: 'src/server/lib/lint-sample-cycle-a.ts',
    source: "import type { B } from './lint-sample-cycle-b.js';\n\nexport interface A {\n  b?: B;\n}\n",
    rule: 'lint/suspicious/noImportCycles',
    severity: 'error',
  },
  'a file past 300 lines': {
    file: 'src/server/lib/lint-sample-long.ts',
    source: Array.from({ length: 310 }, (_, i) => `export const line${i} = ${i};\n`).join(''),
    rule: 'lint/style/noExcessiveLinesPerFile',
    severity: 'warning',
  },
};

/** The other half of the cycle: it must be reported too, and nothing else. */
const CYCLE_B = {
  file: 'src/server/lib/lint-sample-cycle-b.ts',
  source: "import type { A } from './lint-sample-cycle-a.js';\n\nexport interface B {\n  a?: A;\n}\n",
};

interface Diagnostic {
  severity: string;
  category: string;
  location: { path: string | null };
}

interface BiomeRun {
  code: number;
  summary: { errors: number; warnings: number };
  diagnostics: Diagnostic[];
}

function biomeCheck(cwd: string): Promise<BiomeRun> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIOME, 'check', '--reporter=json', '--max-diagnostics=none', '.'],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        try {
          resolve({ code, ...(JSON.parse(stdout) as Omit<BiomeRun, 'code'>) });
        } catch {
          reject(new Error(`biome gave no report (exit ${code}): ${stderr}`));
        }
      },
    );
  });
}

/** A scratch copy of what biome reads: its config, the TypeScript paths (for `@/…`) and src/. */
async function scratchTree(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'autocoder-lint-'));
  for (const file of ['biome.json', 'tsconfig.json', 'package.json']) {
    await cp(path.join(ROOT, file), path.join(dir, file));
  }
  await cp(path.join(ROOT, 'src'), path.join(dir, 'src'), { recursive: true });
  return dir;
}

async function plant(dir: string, file: string, source: string) {
  await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
  await writeFile(path.join(dir, file), source);
}

describe('npm run lint', () => {
  let clean: BiomeRun;
  let planted: BiomeRun;
  const dirs: string[] = [];

  beforeAll(async () => {
    const [untouched, withSamples] = await Promise.all([scratchTree(), scratchTree()]);
    dirs.push(untouched, withSamples);
    for (const sample of [...Object.values(SAMPLES), CYCLE_B]) {
      await plant(withSamples, sample.file, sample.source);
    }
    [clean, planted] = await Promise.all([biomeCheck(untouched), biomeCheck(withSamples)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  });

  it('passes on the tree as it is: no error anywhere', () => {
    const errors = clean.diagnostics.filter((d) => d.severity === 'error');
    expect(errors.map((d) => `${d.location.path}: ${d.category}`)).toEqual([]);
    expect(clean.code).toBe(0);
  });

  it('fails once a sample is planted', () => {
    expect(planted.code).not.toBe(0);
  });

  it.each(Object.entries(SAMPLES))('names the rule broken by %s', (_, sample) => {
    const found = planted.diagnostics
      .filter((d) => d.location.path === sample.file)
      .map((d) => ({ rule: d.category, severity: d.severity }));
    expect(found).toEqual([{ rule: sample.rule, severity: sample.severity }]);
  });

  it('reports the other file of the cycle, and nothing outside the samples', () => {
    const samples = new Set([...Object.values(SAMPLES), CYCLE_B].map((s) => s.file));
    const before = new Set(clean.diagnostics.map((d) => `${d.location.path} ${d.category}`));
    const added = planted.diagnostics
      .filter((d) => !before.has(`${d.location.path} ${d.category}`))
      .map((d) => d.location.path);
    expect(added.filter((file) => !samples.has(file ?? ''))).toEqual([]);
    expect(
      planted.diagnostics.some(
        (d) => d.location.path === CYCLE_B.file && d.category === 'lint/suspicious/noImportCycles',
      ),
    ).toBe(true);
  });
});
