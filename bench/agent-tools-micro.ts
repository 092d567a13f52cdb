// The agent-tools part's direct measure of each tool on the generated repository: AutoCoder's own
// time per call (`executor.execute`), no model, at least 200 calls per row, in rounds that take
// turns so that the machine's load falls on every row alike.
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { git } from '../src/server/lib/git.js';
import { listingCache, settledListing } from '../src/server/modules/agent-tools/git-tools-listing.js';
import { createToolExecutor } from '../src/server/modules/agent-tools/tool-executor.js';
import { BIG_FILE, TARGET_FUNCTION, TARGET_NEW_LINE, TARGET_OLD_LINE } from './agent-tools-repo.js';
import { percentile, round } from './lib/stats.js';

export interface Percentiles {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export function percentiles(samples: readonly number[]): Percentiles {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50), 2),
    p99: round(percentile(sorted, 99), 2),
    max: round(sorted.at(-1) ?? Number.NaN, 2),
  };
}

export interface MicroRow extends Percentiles {
  id: string;
  label: string;
  tool: string;
  /** The aim in ms (p50 and p99), or null for a row shown for reference. */
  aimMs: number | null;
  /** After a listing git made: the walk and stamps that follow in the background, off the call. */
  background?: Percentiles;
}

interface RowSpec {
  id: string;
  label: string;
  tool: string;
  aimMs: number | null;
  /** Before each block of calls, untimed. */
  settle?: () => Promise<void>;
  /** Before each call, untimed. */
  before?: () => Promise<void>;
  call: () => Promise<unknown>;
  /** After each call, timed apart (`background`). */
  after?: () => Promise<void>;
  /** Around the row's blocks. */
  enter?: () => void;
  leave?: () => void;
}

const ROUNDS = 4;
const WARM_UP = 10;

/** Each tool on the worktree: `calls` timed calls per row (after a warm-up), in ROUNDS rounds. */
export async function microMeasure(worktree: string, calls: number): Promise<MicroRow[]> {
  const executor = createToolExecutor({ worktree });
  const ok = async (name: string, input: unknown) => {
    const result = await executor.execute(name, input);
    if (!result.ok) throw new Error(`${name} failed: ${result.error}`);
    return result;
  };
  const index = path.resolve(
    worktree,
    (await git(['rev-parse', '--git-path', 'index'], { cwd: worktree })).stdout.toString('utf8').trim(),
  );
  let edited = false;
  const toggleEdit = () => {
    edited = !edited;
    const [oldText, newText] = edited
      ? [TARGET_OLD_LINE, TARGET_NEW_LINE]
      : [TARGET_NEW_LINE, TARGET_OLD_LINE];
    return ok('edit_file', { path: BIG_FILE, oldText, newText });
  };
  const glob = { glob: '**/*.test.ts' };
  const list = () => ok('list_files', glob);
  const settled = () => settledListing(worktree);
  // A tree at rest: nothing changed for longer than the cache's racy window (100 ms).
  const atRest = async () => {
    await settled();
    await sleep(150);
    await list();
    await settled();
  };
  const specs: RowSpec[] = [
    {
      id: 'list-at-rest',
      label: 'list_files **/*.test.ts, tree at rest (the cache)',
      tool: 'list_files',
      aimMs: 5,
      settle: atRest,
      call: list,
    },
    {
      id: 'list-after-edit',
      label: 'list_files **/*.test.ts, right after an edit (the cache)',
      tool: 'list_files',
      aimMs: 5,
      settle: atRest,
      before: async () => {
        await toggleEdit();
      },
      call: list,
    },
    {
      id: 'list-after-index',
      label: 'list_files **/*.test.ts, after the index changed (git lists)',
      tool: 'list_files',
      aimMs: 5,
      before: async () => {
        await settled();
        const now = new Date();
        await utimes(index, now, now);
      },
      call: list,
      after: settled,
    },
    {
      id: 'list-git',
      label: 'list_files **/*.test.ts, no cache (git every call, as before)',
      tool: 'list_files',
      aimMs: null,
      call: list,
      enter: () => {
        listingCache.enabled = false;
      },
      leave: () => {
        listingCache.enabled = true;
      },
    },
    {
      id: 'read-range',
      label: 'read_file, lines 2901–3100 of the 6,000-line file',
      tool: 'read_file',
      aimMs: 5,
      call: () => ok('read_file', { path: BIG_FILE, startLine: 2901, endLine: 3100 }),
    },
    {
      id: 'edit-line',
      label: 'edit_file, one line of the 6,000-line file',
      tool: 'edit_file',
      aimMs: 5,
      call: toggleEdit,
    },
    {
      id: 'search-one',
      label: 'search, a fixed string (1 match) over all files',
      tool: 'search',
      aimMs: 50,
      call: () => ok('search', { pattern: `function ${TARGET_FUNCTION}(`, fixed: true }),
    },
    {
      id: 'search-many',
      label: 'search, a regex (3,000+ matches, 200 shown) over all files',
      tool: 'search',
      aimMs: 50,
      call: () => ok('search', { pattern: 'export (async )?function \\w+\\(' }),
    },
  ];
  const samples = specs.map(() => [] as number[]);
  const background = specs.map(() => [] as number[]);
  const perRound = Math.ceil(calls / ROUNDS);
  for (let roundIndex = 0; roundIndex < ROUNDS; roundIndex++) {
    for (let k = 0; k < specs.length; k++) {
      const at = (roundIndex + k) % specs.length;
      const spec = specs[at] as RowSpec;
      spec.enter?.();
      try {
        await spec.settle?.();
        const count = perRound + (roundIndex === 0 ? WARM_UP : 0);
        for (let i = 0; i < count; i++) {
          await spec.before?.();
          const began = performance.now();
          await spec.call();
          const took = performance.now() - began;
          const afterBegan = performance.now();
          await spec.after?.();
          if (roundIndex === 0 && i < WARM_UP) continue;
          samples[at]?.push(took);
          if (spec.after) background[at]?.push(performance.now() - afterBegan);
        }
      } finally {
        spec.leave?.();
      }
    }
  }
  if (edited) await toggleEdit();
  return specs.map((spec, i) => ({
    id: spec.id,
    label: spec.label,
    tool: spec.tool,
    aimMs: spec.aimMs,
    ...percentiles(samples[i] ?? []),
    ...(spec.after ? { background: percentiles(background[i] ?? []) } : {}),
  }));
}
