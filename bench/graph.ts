// The graph part of `npm run bench` (`npm run bench -- graph`): the import graph of a generated
// 10,000-file TypeScript repository built cold, then updated after one changed file, beside madge
// and dependency-cruiser on the same files in the same run.
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { git } from '../src/server/lib/git.js';
import { createLogger } from '../src/server/lib/logger.js';
import { GraphService } from '../src/server/modules/graph/graph-service.js';
import { type ToolResult, treeCpuMs } from './graph-compare.js';
import { commitAll, generateRepository, writeRepository } from './graph-repo.js';
import { runTools } from './graph-tools-run.js';
import { type Aim, intEnv } from './lib/common.js';
import { int, ms, table } from './lib/format.js';
import { makeTempDir, removeTempDir } from './lib/processes.js';
import { median, round } from './lib/stats.js';

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

export async function benchGraph(settings: GraphConfig): Promise<GraphResult> {
  const loadStart = os.loadavg().map((value) => round(value, 2));
  const scratch = await makeTempDir('autocoder-bench-graph-');
  try {
    const repo = path.join(scratch, 'repo');
    await git(['init', '--quiet', '--initial-branch=main', repo]);
    const files = generateRepository(settings.files);
    const bytes = await writeRepository(repo, files);
    await commitAll(repo, 'generated');
    // Packed, as a repository that has lived is, and no background `gc --auto` during the builds.
    await git(['gc', '--quiet'], { cwd: repo, timeoutMs: 300_000 });
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

    // The tools on the same files, before the updates change them.
    const { madge, dependencyCruiser } = await runTools(repo, scratch);

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
