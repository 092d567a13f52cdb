// The setup part's report: its aims (a cached setup under 2 s and under a fifth of the network
// install) and its table. The measuring is in setup.ts.
import type { Aim } from './lib/common.js';
import { table } from './lib/format.js';
import { round } from './lib/stats.js';
import { benchSetup, type SetupResult, setupBenchConfig } from './setup.js';

export async function runSetupPart(): Promise<{
  aims: Aim[];
  print: () => void;
  json: () => Record<string, unknown>;
}> {
  const config = setupBenchConfig();
  console.log(
    `\n=== Setup: npm ci through the sandbox ${config.installs} times, then ${config.copies} restores ` +
      'from the dependency cache and plain copies, taking turns',
  );
  const result = await benchSetup(config);
  return {
    aims: setupAims(result),
    print: () => {
      console.log("\n--- Setup (a run's worktree: installed, or restored from the dependency cache)");
      printSetup(result);
    },
    json: () => ({ setup: { config, ...result } }),
  };
}

export function setupAims(result: SetupResult): Aim[] {
  const ok = result.status === 'ok';
  const restore = ok ? (result.rows[1]?.p50Ms ?? null) : null;
  return [
    {
      name: `cached setup of a ~300-package node_modules, p50${ok ? ` (${result.packages} packages)` : ''}`,
      target: '< 2 s',
      actual: restore,
      unit: 'ms',
      met: restore === null ? null : restore < 2000,
      part: 'setup',
    },
    {
      name: 'the same right after a worktree with node_modules was removed (ext4 churn), for reference',
      target: '< 2 s',
      actual: ok ? (result.rows[2]?.p50Ms ?? null) : null,
      unit: 'ms',
      met: ok && result.rows[2] ? result.rows[2].p50Ms < 2000 : null,
      part: 'setup',
    },
    {
      name: 'cached setup ÷ network install (npm ci), p50',
      target: '< 20 %',
      actual: ok ? round(result.restoreShare * 100, 1) : null,
      unit: '%',
      met: ok ? result.restoreShare < 0.2 : null,
      part: 'setup',
    },
  ];
}

export function printSetup(result: SetupResult): void {
  if (result.status !== 'ok') {
    console.log(`skipped: ${result.reason}`);
    return;
  }
  const mb = (result.bytes / 1024 / 1024).toFixed(1);
  console.log(
    `project: ${Object.entries(result.dependencies)
      .map(([name, version]) => `${name}@${version}`)
      .join(
        ' + ',
      )} — ${result.packages} packages, node_modules ${mb} MB in ${result.entries} files and directories`,
  );
  console.log(
    `sandbox: ${result.sandbox}; process uid ${result.uid}; filesystem ${result.filesystem}, ` +
      `${result.reflinks ? 'reflinks (copy-on-write copies)' : 'no reflinks: --reflink=auto makes a full copy'}`,
  );
  console.log(
    table(
      ['way', 'runs', 'p50 ms', 'min ms', 'max ms'],
      result.rows.map((r) => [r.way, String(r.runs), String(r.p50Ms), String(r.minMs), String(r.maxMs)]),
    ),
  );
  console.log(`restore ÷ install (p50): ${(result.restoreShare * 100).toFixed(1)} %`);
}
