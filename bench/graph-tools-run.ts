// madge and dependency-cruiser on the generated repository, as the graph part runs them (bench/graph.ts).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensureTools, type ToolResult, timeTool, tools } from './graph-compare.js';
import { ms } from './lib/format.js';

/** madge's depth-first walk recurses once per import on a chain (see `ToolRun.stackKb`). */
const MADGE_STACK_KB = 512 * 1024;

/**
 * dependency-cruiser's options (a config file: there are no command-line flags for all of them).
 * `tsPreCompilationDeps` counts type-only and unused imports too, as madge and AutoCoder do, and
 * `tsConfig` gives it the same `paths`. `skipAnalysisNotInRules` is what its `--init` writes: with
 * no rules it then skips what rules would need (cycles, orphans, reachability, metrics) and builds
 * the graph alone, like the other two; without it, it was still finding the cycles of every
 * dependency minutes after it had built the graph here.
 *
 * Known: dependency-cruiser leaves ~8,000 of the ~47,800 imports of this repository unresolved
 * (every kind — relative, `paths`, barrels — in files of one contiguous stretch of the tree,
 * f36…f91, the same in every run); madge and AutoCoder agree edge for edge. A longer file system
 * cache (`cacheDuration`) did not change it. Its edge count is printed beside the others.
 */
const CRUISE_CONFIG = {
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    skipAnalysisNotInRules: true,
    progress: { type: 'none' },
  },
};

const skipped = (reason: string): ToolResult => ({
  status: 'skipped',
  ms: null,
  cpuMs: null,
  modules: null,
  edges: null,
  reason,
});

const said = (tool: ToolResult) =>
  tool.status === 'ok' ? `${ms(tool.ms ?? 0)} ms` : `${tool.status}: ${tool.reason}`;

/** Both tools, one after the other, on the checked-out files of `repo` (their output in `scratch`). */
export async function runTools(
  repo: string,
  scratch: string,
): Promise<{ madge: ToolResult; dependencyCruiser: ToolResult }> {
  const missing = await ensureTools();
  if (missing) return { madge: skipped(missing), dependencyCruiser: skipped(missing) };
  const madge = await timeTool({
    command: [
      path.join(tools, 'node_modules', 'madge', 'bin', 'cli.js'),
      '--json',
      '--extensions',
      'ts,tsx',
      '--ts-config',
      'tsconfig.json',
      'src',
    ],
    cwd: repo,
    count: (stdout) => {
      const graph = JSON.parse(stdout) as Record<string, string[]>;
      return {
        modules: Object.keys(graph).length,
        edges: Object.values(graph).reduce((sum, list) => sum + list.length, 0),
      };
    },
    outputFile: path.join(scratch, 'madge.json'),
    toStdout: true,
    stackKb: MADGE_STACK_KB,
  });
  console.log(`  madge: ${said(madge)}`);

  const cruiseOut = path.join(scratch, 'cruise.json');
  const cruiseConfig = path.join(scratch, 'dependency-cruiser.json');
  await writeFile(cruiseConfig, JSON.stringify(CRUISE_CONFIG, null, 2));
  const dependencyCruiser = await timeTool({
    command: [
      path.join(tools, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs'),
      '--config',
      cruiseConfig,
      '--output-type',
      'json',
      '--output-to',
      cruiseOut,
      'src',
    ],
    cwd: repo,
    count: (text) => {
      const result = JSON.parse(text) as {
        modules: { source: string; dependencies: { resolved: string }[] }[];
      };
      const local = result.modules.filter((module) => module.source.startsWith('src/'));
      const edges = local.reduce(
        (sum, module) => sum + module.dependencies.filter((dep) => dep.resolved.startsWith('src/')).length,
        0,
      );
      return { modules: local.length, edges };
    },
    outputFile: cruiseOut,
    toStdout: false,
  });
  console.log(`  dependency-cruiser: ${said(dependencyCruiser)}`);
  return { madge, dependencyCruiser };
}
