// The graph part of `npm run bench` (`npm run bench -- graph`): the import graph of a generated
// 10,000-file TypeScript repository built cold, then updated after one changed file, beside madge
// and dependency-cruiser on the same files in the same run.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { git } from '../src/server/lib/git.js';
import { createLogger } from '../src/server/lib/logger.js';
import { GraphService } from '../src/server/modules/graph/graph-service.js';
import { type Aim, intEnv } from './lib/common.js';
import { int, ms, table } from './lib/format.js';
import { makeTempDir, removeTempDir } from './lib/processes.js';
import { median, round } from './lib/stats.js';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tools = path.join(root, 'bench', 'graph-tools');

export const GRAPH_AIMS = { filesPerSecond: 5000, updateMs: 50 };

export interface GraphConfig {
  files: number;
  coldRuns: number;
  updates: number;
}

export function graphConfig(): GraphConfig {
  return {
    files: intEnv('BENCH_GRAPH_FILES', 10_000),
    coldRuns: intEnv('BENCH_GRAPH_COLD_RUNS', 3),
    updates: intEnv('BENCH_GRAPH_UPDATES', 10),
  };
}

interface ToolResult {
  /** `timeout`: killed after BENCH_GRAPH_TOOL_TIMEOUT_S; `ms` is then a lower bound. */
  status: 'ok' | 'skipped' | 'error' | 'timeout';
  ms: number | null;
  /** CPU time (user + system) of the tool's process and its children. */
  cpuMs: number | null;
  modules: number | null;
  edges: number | null;
  reason?: string;
}

export interface GraphResult {
  files: number;
  bytes: number;
  cold: {
    runsMs: number[];
    medianMs: number;
    filesPerSecond: number;
    /** CPU time of the median run: this process, the parser processes, git (through the launcher). */
    cpuMs: number;
    edges: number;
    nodes: number;
  };
  update: { modifyMs: number[]; medianMs: number; maxMs: number; addMs: number };
  madge: ToolResult;
  dependencyCruiser: ToolResult;
  loadAverage: { start: number[]; end: number[] };
}

/** A small deterministic generator (mulberry32). */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A repository shaped like a large application: `src/features/f<i>/` folders (components, hooks,
 * services, a barrel index.ts), `src/shared/` utilities, tsconfig `paths` (`@app/*`, `@shared/*`),
 * 3–8 imports per file — relative, through an alias, a barrel, a package, type-only, now and then a
 * dynamic import() — and bodies of about 1.5 kB.
 */
export function generateRepository(count: number): Map<string, string> {
  const next = random(42);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const files = new Map<string, string>();
  files.set(
    'tsconfig.json',
    JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          strict: true,
          jsx: 'react-jsx',
          baseUrl: '.',
          paths: { '@app/*': ['src/*'], '@shared/*': ['src/shared/*'] },
        },
        include: ['src'],
      },
      null,
      2,
    ),
  );
  files.set('package.json', JSON.stringify({ name: 'big-app', private: true, type: 'module' }, null, 2));
  const shared = Math.round(count * 0.05);
  const perFeature = 100;
  const features = Math.max(1, Math.round((count - shared) / perFeature));
  const modules: { file: string; spec: string; feature: number }[] = [];
  for (let i = 0; i < shared; i++) {
    modules.push({ file: `src/shared/${i % 2 ? 'utils' : 'lib'}/s${i}.ts`, spec: '', feature: -1 });
  }
  for (let f = 0; f < features && modules.length < count; f++) {
    modules.push({ file: `src/features/f${f}/index.ts`, spec: '', feature: f });
    for (let j = 1; j < perFeature && modules.length < count; j++) {
      const kind = j % 3 === 0 ? 'components' : j % 3 === 1 ? 'services' : 'hooks';
      const ext = kind === 'components' ? 'tsx' : 'ts';
      modules.push({ file: `src/features/f${f}/${kind}/m${j}.${ext}`, spec: '', feature: f });
    }
  }
  const byFeature = new Map<number, typeof modules>();
  for (const module of modules) {
    const list = byFeature.get(module.feature) ?? [];
    list.push(module);
    byFeature.set(module.feature, list);
  }
  const sharedModules = byFeature.get(-1) ?? [];
  const noExt = (file: string) => file.replace(/\.tsx?$/, '');
  const relative = (from: string, to: string) => {
    const rel = path.posix.relative(path.posix.dirname(from), noExt(to));
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  for (const [index, module] of modules.entries()) {
    const imports: string[] = [];
    const wanted = 3 + Math.floor(next() * 6);
    const own = byFeature.get(module.feature) ?? sharedModules;
    for (let k = 0; k < wanted; k++) {
      const roll = next();
      const name = `v${k}`;
      if (roll < 0.35) {
        const target = pick(own);
        if (target.file === module.file) continue;
        imports.push(`import { value as ${name} } from '${relative(module.file, target.file)}';`);
      } else if (roll < 0.55) {
        const target = pick(sharedModules);
        imports.push(
          `import { value as ${name} } from '@shared/${noExt(target.file).slice('src/shared/'.length)}';`,
        );
      } else if (roll < 0.7) {
        const f = Math.floor(next() * features);
        imports.push(`import { value as ${name} } from '@app/features/f${f}';`);
      } else if (roll < 0.8) {
        const target = pick(modules);
        if (target.file === module.file) continue;
        imports.push(
          `import type { Shape as ${name.toUpperCase()} } from '@app/${noExt(target.file).slice(4)}';`,
        );
      } else if (roll < 0.93) {
        imports.push(`import ${name} from '${pick(['react', 'lodash', 'zod', 'date-fns', 'node:path'])}';`);
      } else {
        const target = pick(own);
        imports.push(`const ${name} = () => import('${relative(module.file, target.file)}');`);
      }
    }
    if (module.file.endsWith('/index.ts')) {
      for (const sibling of own.slice(1, 6))
        imports.push(`export * from '${relative(module.file, sibling.file)}';`);
    }
    const body = [
      `export interface Shape { id: number; name: string; tags: string[] }`,
      `export const value = ${index};`,
      `export function compute${index}(items: Shape[], factor = ${index % 7}): number {`,
      '  let total = 0;',
      '  for (const item of items) {',
      '    if (item.tags.includes("skip")) continue;',
      '    total += item.id * factor + item.name.length;',
      '  }',
      '  return total;',
      '}',
      `export class Store${index} {`,
      '  private readonly items = new Map<number, Shape>();',
      '  add(item: Shape): void { this.items.set(item.id, item); }',
      '  find(id: number): Shape | undefined { return this.items.get(id); }',
      '  all(): Shape[] { return [...this.items.values()].sort((a, b) => a.id - b.id); }',
      '}',
      module.file.endsWith('.tsx')
        ? `export const View${index} = (props: { items: Shape[] }) => <ul>{props.items.map((i) => <li key={i.id}>{i.name}</li>)}</ul>;`
        : `export const format${index} = (shape: Shape) => \`\${shape.id}: \${shape.name} [\${shape.tags.join(", ")}]\`;`,
    ];
    files.set(module.file, `${imports.join('\n')}\n\n${body.join('\n')}\n`);
  }
  return files;
}

async function writeRepository(dir: string, files: Map<string, string>): Promise<number> {
  let bytes = 0;
  const dirs = new Set([...files.keys()].map((file) => path.dirname(path.join(dir, file))));
  for (const folder of dirs) await mkdir(folder, { recursive: true });
  const entries = [...files];
  for (let i = 0; i < entries.length; i += 200) {
    await Promise.all(
      entries.slice(i, i + 200).map(([file, content]) => {
        bytes += Buffer.byteLength(content);
        return writeFile(path.join(dir, file), content);
      }),
    );
  }
  return bytes;
}

async function commitAll(dir: string, message: string): Promise<string> {
  await git(['add', '-A'], { cwd: dir, timeoutMs: 300_000 });
  await git(['commit', '--quiet', '--no-verify', '-m', message], { cwd: dir, timeoutMs: 300_000 });
  return (await git(['rev-parse', 'HEAD'], { cwd: dir })).stdout.toString().trim();
}

/** madge and dependency-cruiser live in bench/graph-tools (they need TypeScript 5); installed on first use. */
async function ensureTools(): Promise<string | null> {
  if (
    existsSync(path.join(tools, 'node_modules', 'madge')) &&
    existsSync(path.join(tools, 'node_modules', 'dependency-cruiser'))
  ) {
    return null;
  }
  try {
    console.log('installing madge and dependency-cruiser into bench/graph-tools (npm ci)…');
    await run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tools, timeout: 600_000 });
    return null;
  } catch (error) {
    return `could not install bench/graph-tools: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`;
  }
}

const TICKS = 100;

/** Fields of /proc/<pid>/stat after the command name: utime [11], stime [12], cutime [13], cstime [14]. */
function statFields(pid: number | string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time (ms) of this process and of its child processes with what they waited for: the parser
 * processes, and the command launcher with the git commands it ran.
 */
function treeCpuMs(): number {
  const own = process.cpuUsage();
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry);
    if (!fields || Number(fields[1]) !== process.pid) continue;
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  }
  return (own.user + own.system) / 1000 + (ticks * 1000) / TICKS;
}

/** Runs a tool under `sh`, which then reports the CPU time of what it waited for (the tool). */
async function timeTool(
  command: string[],
  cwd: string,
  count: (output: string) => { modules: number; edges: number },
  outputFile: string,
  toStdout: boolean,
): Promise<ToolResult> {
  const quoted = [process.execPath, ...command].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const script = `${quoted}${toStdout ? ` > '${outputFile}'` : ''} || exit $?; cat /proc/$$/stat`;
  const started = performance.now();
  try {
    const { stdout } = await run('sh', ['-c', script], {
      cwd,
      maxBuffer: 64 * 1024 * 1024,
      timeout: intEnv('BENCH_GRAPH_TOOL_TIMEOUT_S', 1200) * 1000,
    });
    const elapsed = performance.now() - started;
    const fields = stdout.slice(stdout.lastIndexOf(')') + 2).split(' ');
    const cpuMs = ((Number(fields[13]) + Number(fields[14])) * 1000) / TICKS;
    return { status: 'ok', ms: round(elapsed, 0), cpuMs, ...count(await readFile(outputFile, 'utf8')) };
  } catch (error) {
    const elapsed = round(performance.now() - started, 0);
    if ((error as { killed?: boolean }).killed) {
      const reason = `still running after ${ms(elapsed)} ms`;
      return { status: 'timeout', ms: elapsed, cpuMs: null, modules: null, edges: null, reason };
    }
    const reason = error instanceof Error ? error.message.split('\n').slice(0, 2).join(' ') : String(error);
    return { status: 'error', ms: null, cpuMs: null, modules: null, edges: null, reason };
  }
}

export async function benchGraph(settings: GraphConfig): Promise<GraphResult> {
  const loadStart = os.loadavg().map((value) => round(value, 2));
  const scratch = await makeTempDir('autocoder-bench-graph-');
  try {
    const repo = path.join(scratch, 'repo');
    await git(['init', '--quiet', '--initial-branch=main', repo]);
    const files = generateRepository(settings.files);
    const bytes = await writeRepository(repo, files);
    await commitAll(repo, 'generated');
    const sources = [...files.keys()].filter((file) => /\.tsx?$/.test(file)).length;
    console.log(`  generated ${int(sources)} TypeScript files (${int(bytes / 1024)} kB), committed`);

    const logger = createLogger('silent');
    const runsMs: number[] = [];
    const runsCpuMs: number[] = [];
    let service: GraphService | null = null;
    let edges = 0;
    let nodes = 0;
    for (let i = 0; i < settings.coldRuns; i++) {
      service?.close();
      service = new GraphService({ dataDir: path.join(scratch, `data-${i}`), logger });
      const started = performance.now();
      const cpuBefore = treeCpuMs();
      const graph = await service.current({ id: 'bench', repoPath: repo }, 'main');
      runsMs.push(round(performance.now() - started, 1));
      runsCpuMs.push(round(treeCpuMs() - cpuBefore, 0));
      edges = [...graph.sources.values()].reduce((sum, record) => sum + record.targets.length, 0);
      nodes = new Set([...graph.sources.keys(), ...graph.importedBy.keys()]).size;
      console.log(
        `  cold build ${i + 1}: ${ms(runsMs.at(-1) ?? 0)} ms (CPU ${ms(runsCpuMs.at(-1) ?? 0)} ms), ${int(nodes)} nodes, ${int(edges)} edges`,
      );
    }
    const medianMs = median(runsMs);
    const live = service as GraphService;

    // One changed file per commit: a component swaps one of its imports.
    const modifyMs: number[] = [];
    const components = [...files.keys()].filter((file) => file.includes('/components/'));
    for (let i = 0; i < settings.updates; i++) {
      const file = components[(i * 37) % components.length] as string;
      const content = `import { value as extra${i} } from '@shared/lib/s${(i * 2) % 100}';\n${files.get(file)}`;
      files.set(file, content);
      await writeFile(path.join(repo, file), content);
      await commitAll(repo, `change ${file}`);
      const started = performance.now();
      const graph = await live.current({ id: 'bench', repoPath: repo }, 'main');
      modifyMs.push(round(performance.now() - started, 1));
      if (graph.stats.mode !== 'incremental') throw new Error('the update was not incremental');
    }
    // For reference: an added file (every request is resolved again, nothing else parsed).
    await writeFile(
      path.join(repo, 'src/shared/lib/added.ts'),
      "import { value } from './s0';\nexport const added = value;\n",
    );
    await commitAll(repo, 'add a file');
    const addStarted = performance.now();
    await live.current({ id: 'bench', repoPath: repo }, 'main');
    const addMs = round(performance.now() - addStarted, 1);
    live.close();
    console.log(
      `  update after one changed file: median ${ms(median(modifyMs))} ms; after an added file ${ms(addMs)} ms`,
    );

    const missing = await ensureTools();
    const skipped = (reason: string): ToolResult => ({
      status: 'skipped',
      ms: null,
      cpuMs: null,
      modules: null,
      edges: null,
      reason,
    });
    const madge = missing
      ? skipped(missing)
      : await timeTool(
          [
            path.join(tools, 'node_modules', 'madge', 'bin', 'cli.js'),
            '--json',
            '--extensions',
            'ts,tsx',
            '--ts-config',
            'tsconfig.json',
            'src',
          ],
          repo,
          (stdout) => {
            const graph = JSON.parse(stdout) as Record<string, string[]>;
            return {
              modules: Object.keys(graph).length,
              edges: Object.values(graph).reduce((sum, list) => sum + list.length, 0),
            };
          },
          path.join(scratch, 'madge.json'),
          true,
        );
    console.log(
      `  madge: ${madge.status === 'ok' ? `${ms(madge.ms ?? 0)} ms` : `${madge.status}: ${madge.reason}`}`,
    );
    const cruiseOut = path.join(scratch, 'cruise.json');
    const dependencyCruiser = missing
      ? skipped(missing)
      : await timeTool(
          [
            path.join(tools, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'),
            '--no-config',
            // Counts type-only and unused imports too, as madge and AutoCoder do.
            '--ts-pre-compilation-deps',
            '--ts-config',
            'tsconfig.json',
            '--output-type',
            'json',
            '--output-to',
            cruiseOut,
            'src',
          ],
          repo,
          (text) => {
            const result = JSON.parse(text) as {
              modules: {
                source: string;
                coreModule?: boolean;
                couldNotResolve?: boolean;
                dependencies: { resolved: string; couldNotResolve: boolean; coreModule: boolean }[];
              }[];
            };
            const local = result.modules.filter((module) => module.source.startsWith('src/'));
            const edgeCount = local.reduce(
              (sum, module) =>
                sum + module.dependencies.filter((dep) => dep.resolved.startsWith('src/')).length,
              0,
            );
            return { modules: local.length, edges: edgeCount };
          },
          cruiseOut,
          false,
        );
    console.log(
      `  dependency-cruiser: ${dependencyCruiser.status === 'ok' ? `${ms(dependencyCruiser.ms ?? 0)} ms` : `${dependencyCruiser.status}: ${dependencyCruiser.reason}`}`,
    );
    return {
      files: sources,
      bytes,
      cold: {
        runsMs,
        medianMs,
        filesPerSecond: round(sources / (medianMs / 1000), 0),
        cpuMs: runsCpuMs[runsMs.indexOf(medianMs)] ?? median(runsCpuMs),
        edges,
        nodes,
      },
      update: { modifyMs, medianMs: median(modifyMs), maxMs: Math.max(...modifyMs), addMs },
      madge,
      dependencyCruiser,
      loadAverage: { start: loadStart, end: os.loadavg().map((value) => round(value, 2)) },
    };
  } finally {
    await removeTempDir(scratch);
  }
}

export function printGraph(result: GraphResult) {
  const row = (name: string, tool: ToolResult) => [
    name,
    tool.ms === null ? `${tool.status}` : `${tool.status === 'timeout' ? '> ' : ''}${ms(tool.ms)} ms`,
    tool.ms === null ? '–' : int(result.files / (tool.ms / 1000)),
    tool.cpuMs === null ? '–' : `${ms(tool.cpuMs)} ms`,
    tool.cpuMs === null ? '–' : int(result.files / (tool.cpuMs / 1000)),
    tool.modules === null ? '–' : int(tool.modules),
    tool.edges === null ? '–' : int(tool.edges),
  ];
  console.log(
    table(
      ['graph of the same files', 'cold (wall)', 'files/s', 'CPU', 'files/CPU-s', 'modules', 'edges'],
      [
        [
          'AutoCoder (git → oxc)',
          `${ms(result.cold.medianMs)} ms`,
          int(result.cold.filesPerSecond),
          `${ms(result.cold.cpuMs)} ms`,
          int(result.files / (result.cold.cpuMs / 1000)),
          int(result.cold.nodes),
          int(result.cold.edges),
        ],
        row('madge 8.0.0', result.madge),
        row('dependency-cruiser 17.4.3', result.dependencyCruiser),
      ],
    ),
  );
  console.log(
    `update after one changed file: median ${ms(result.update.medianMs)} ms, max ${ms(result.update.maxMs)} ms ` +
      `(${result.update.modifyMs.length} updates); after an added file: ${ms(result.update.addMs)} ms`,
  );
  console.log(`load average ${result.loadAverage.start.join(' ')} → ${result.loadAverage.end.join(' ')}`);
}

export function graphAims(result: GraphResult): Aim[] {
  const faster = (tool: ToolResult) => (tool.ms === null ? null : result.cold.medianMs < tool.ms);
  return [
    {
      name: `graph: cold build of ${int(result.files)} TS files`,
      target: `≥ ${int(GRAPH_AIMS.filesPerSecond)} files/s`,
      actual: result.cold.filesPerSecond,
      unit: 'files/s',
      met: result.cold.filesPerSecond >= GRAPH_AIMS.filesPerSecond,
      part: 'graph',
    },
    {
      name: 'graph: update after one changed file (median)',
      target: `< ${GRAPH_AIMS.updateMs} ms`,
      actual: result.update.medianMs,
      unit: 'ms',
      met: result.update.medianMs < GRAPH_AIMS.updateMs,
      part: 'graph',
    },
    {
      name: 'graph: cold build faster than madge',
      target: `< ${result.madge.ms === null ? '–' : ms(result.madge.ms)} ms`,
      actual: result.cold.medianMs,
      unit: 'ms',
      met: faster(result.madge),
      part: 'graph',
    },
    {
      name: 'graph: cold build faster than dependency-cruiser',
      target: `< ${result.dependencyCruiser.ms === null ? '–' : ms(result.dependencyCruiser.ms)} ms`,
      actual: result.cold.medianMs,
      unit: 'ms',
      met: faster(result.dependencyCruiser),
      part: 'graph',
    },
  ];
}
