// The three tasks of the agent-tools part (bench/agent-tools.ts), each a scripted trajectory the
// stand-in endpoint plays turn by turn (reading the previous turn's tool results, as a model
// does), and a check of what it left in the worktree.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { git } from '../src/server/lib/git.js';
import type { CheckRunOutcome } from '../src/server/modules/agent-tools/coder-engine.js';
import type {
  ScriptedRequest,
  ScriptedTurn,
} from '../src/server/modules/agent-tools/testing/scripted-endpoint.js';
import {
  BIG_FILE,
  BROKEN_FILE,
  CHECK_SCRIPT,
  NEW_MODULE,
  REPORTS_INDEX,
  TARGET_FUNCTION,
  TARGET_NEW_LINE,
  TARGET_OLD_LINE,
} from './agent-tools-repo.js';
import { relativeImport } from './agent-tools-sources.js';

export type TaskId = 'big-file-function' | 'new-module' | 'fix-check';
type Turn = (request: ScriptedRequest) => ScriptedTurn;

export interface BenchTask {
  id: TaskId;
  title: string;
  prompt: string;
  /** The step gets the check as `runCheck`. */
  withCheck: boolean;
  /** A fresh trajectory (its turns keep what they learnt in a closure). */
  turns(): Turn[];
  /** What is wrong with the worktree after the step; null when it is exactly what was intended. */
  verify(worktree: string): Promise<string | null>;
}

/** The result of the previous turn's only (or n-th) call, which must have succeeded. */
function result(request: ScriptedRequest, n = 0): string {
  const found = request.results[n];
  if (!found) throw new Error(`turn ${request.turn}: no result ${n} of the previous turn`);
  if (found.isError) throw new Error(`turn ${request.turn}: the call failed: ${found.content.slice(0, 300)}`);
  return found.content;
}

function match(text: string, pattern: RegExp, what: string): RegExpExecArray {
  const found = pattern.exec(text);
  if (!found) throw new Error(`${what} not found in: ${text.slice(0, 300)}`);
  return found;
}

/** read_file's numbered lines: line number → text. */
function numbered(output: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const row of output.split('\n')) {
    const found = /^\s*(\d+)\t(.*)$/.exec(row);
    if (found) lines.set(Number(found[1]), found[2] ?? '');
  }
  return lines;
}

const gitText = async (worktree: string, args: string[]) =>
  (await git(args, { cwd: worktree })).stdout.toString('utf8').trim();

/** The tracked changes as `git diff --numstat` lines and the new files, or what differs. */
async function expectChanges(worktree: string, numstat: string[], added: string[]): Promise<string | null> {
  const stat = (await gitText(worktree, ['diff', '--numstat'])).split('\n').filter(Boolean);
  if (stat.join('|') !== numstat.join('|')) return `git diff --numstat: ${stat.join(', ') || 'nothing'}`;
  const untracked = (await gitText(worktree, ['ls-files', '--others', '--exclude-standard']))
    .split('\n')
    .filter(Boolean);
  if (untracked.join('|') !== added.join('|')) return `new files: ${untracked.join(', ') || 'none'}`;
  return null;
}

const bigFileFunction: BenchTask = {
  id: 'big-file-function',
  title: 'change one function in the 6,000-line file',
  prompt: `Heavy parcels (over 20 kg) now pay a 14.0 EUR surcharge instead of 12.5: change ${TARGET_FUNCTION}.`,
  withCheck: false,
  turns: () => [
    () => ({
      text: 'Looking at the core first.',
      calls: [{ name: 'list_files', input: { path: 'src/core' } }],
    }),
    (r) => {
      match(result(r), /^src\/core\/registry\.ts$/m, 'the registry');
      return { calls: [{ name: 'search', input: { pattern: `function ${TARGET_FUNCTION}(`, fixed: true } }] };
    },
    (r) => {
      const line = Number(match(result(r), /^src\/core\/registry\.ts:(\d+):/m, 'the function')[1]);
      return {
        calls: [{ name: 'read_file', input: { path: BIG_FILE, startLine: line, endLine: line + 199 } }],
      };
    },
    (r) => {
      if (![...numbered(result(r)).values()].includes(TARGET_OLD_LINE))
        throw new Error('the surcharge line was not read');
      const input = { path: BIG_FILE, oldText: TARGET_OLD_LINE, newText: TARGET_NEW_LINE };
      return { text: 'The surcharge is on one line.', calls: [{ name: 'edit_file', input }] };
    },
    (r) => {
      match(result(r), /^Edited src\/core\/registry\.ts at line \d+ \(\+1 −1\)/, 'the edit');
      return { calls: [{ name: 'finish', input: { summary: 'The heavy-parcel surcharge is 14.0 now.' } }] };
    },
  ],
  async verify(worktree) {
    const changes = await expectChanges(worktree, [`1\t1\t${BIG_FILE}`], []);
    if (changes) return changes;
    // Exactly the intended line: one hunk, that line out, its replacement in, at the same place.
    const diff = await gitText(worktree, ['diff', '--unified=0', '--no-ext-diff', '--', BIG_FILE]);
    const hunks = diff.split('\n').filter((line) => line.startsWith('@@'));
    const body = diff.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line));
    const at = /^@@ -(\d+) \+(\d+) @@/.exec(hunks[0] ?? '');
    if (hunks.length !== 1 || !at || at[1] !== at[2]) return `hunks: ${hunks.join(' ')}`;
    if (body.join('\n') !== `-${TARGET_OLD_LINE}\n+${TARGET_NEW_LINE}`)
      return `changed lines: ${body.join(' | ')}`;
    return null;
  },
};

const exportLine = `export * from './${path.posix.basename(NEW_MODULE, '.ts')}.js';`;
function newModule(money: string, date: string): string {
  return [
    `import { formatDate } from '${relativeImport(NEW_MODULE, date)}';`,
    `import { formatMoney } from '${relativeImport(NEW_MODULE, money)}';`,
    '',
    'export interface OrderLine {',
    '  id: string;',
    '  placedAt: Date;',
    '  totalCents: number;',
    '}',
    '',
    '/** One line of the orders report: "A-17 · 2025-03-01 · 1,234.56 EUR". */',
    'export function orderSummaryLine(order: OrderLine): string {',
    "  return [order.id, formatDate(order.placedAt), formatMoney(order.totalCents)].join(' · ');",
    '}',
    '',
  ].join('\n');
}
let expectedModule = '';

const addModule: BenchTask = {
  id: 'new-module',
  title: 'add a module that imports two others',
  prompt: `Add ${NEW_MODULE}: orderSummaryLine(order) shows an order's id, date (formatDate) and total (formatMoney). Export it from ${REPORTS_INDEX}.`,
  withCheck: false,
  turns: () => {
    const found = { money: '', date: '' };
    return [
      () => ({
        calls: [
          { name: 'search', input: { pattern: 'export function formatMoney(', fixed: true } },
          { name: 'search', input: { pattern: 'export function formatDate(', fixed: true } },
        ],
      }),
      (r) => {
        found.money =
          match(result(r, 0), /^([^:\n]+):\d+:export function formatMoney/m, 'formatMoney')[1] ?? '';
        found.date = match(result(r, 1), /^([^:\n]+):\d+:export function formatDate/m, 'formatDate')[1] ?? '';
        return {
          calls: [
            { name: 'read_file', input: { path: found.money } },
            { name: 'read_file', input: { path: found.date } },
          ],
        };
      },
      (r) => {
        result(r, 0);
        result(r, 1);
        expectedModule = newModule(found.money, found.date);
        return { calls: [{ name: 'write_file', input: { path: NEW_MODULE, content: expectedModule } }] };
      },
      (r) => {
        match(result(r), /^Created /, 'the new module');
        return { calls: [{ name: 'read_file', input: { path: REPORTS_INDEX } }] };
      },
      (r) => {
        const lines = [...numbered(result(r)).values()];
        const last = lines.at(-1);
        if (!last) throw new Error('the index is empty');
        const input = { path: REPORTS_INDEX, oldText: last, newText: `${last}\n${exportLine}` };
        return { calls: [{ name: 'edit_file', input }] };
      },
      (r) => {
        match(result(r), /\(\+1 −0\)/, 'the export');
        return {
          calls: [{ name: 'finish', input: { summary: `Added orderSummaryLine in ${NEW_MODULE}.` } }],
        };
      },
    ];
  },
  async verify(worktree) {
    const changes = await expectChanges(worktree, [`1\t0\t${REPORTS_INDEX}`], [NEW_MODULE]);
    if (changes) return changes;
    if ((await readFile(path.join(worktree, NEW_MODULE), 'utf8')) !== expectedModule)
      return 'the new module differs';
    const check = await runCheck(worktree, [NEW_MODULE, REPORTS_INDEX]);
    return check.passed ? null : `its imports do not resolve: ${check.tail}`;
  },
};

let lastCheck = '';
const fixCheck: BenchTask = {
  id: 'fix-check',
  title: 'fix a failing check',
  prompt: 'The check fails. Find out why and fix it.',
  withCheck: true,
  turns: () => {
    const seen = { file: '', line: 0, text: '', name: '', spec: '' };
    return [
      () => ({ text: 'Running the check first.', calls: [{ name: 'run_check', input: {} }] }),
      (r) => {
        const failed = match(result(r), /^(\S+):(\d+): cannot resolve '([^']+)'/m, 'the failure');
        Object.assign(seen, { file: failed[1] ?? '', line: Number(failed[2]), spec: failed[3] ?? '' });
        const input = { path: seen.file, startLine: Math.max(1, seen.line - 1), endLine: seen.line + 3 };
        return { calls: [{ name: 'read_file', input }] };
      },
      (r) => {
        seen.text = numbered(result(r)).get(seen.line) ?? '';
        seen.name = match(seen.text, /import \{ (\w+) \}/, 'the import')[1] ?? '';
        return {
          calls: [{ name: 'search', input: { pattern: `export function ${seen.name}(`, fixed: true } }],
        };
      },
      (r) => {
        const target = match(result(r), /^([^:\n]+):\d+:/m, 'the module')[1] ?? '';
        const fixed = seen.text.replace(seen.spec, relativeImport(seen.file, target));
        return {
          calls: [{ name: 'edit_file', input: { path: seen.file, oldText: seen.text, newText: fixed } }],
        };
      },
      (r) => {
        match(result(r), /\(\+1 −1\)/, 'the fix');
        return { calls: [{ name: 'run_check', input: {} }] };
      },
      (r) => {
        lastCheck = result(r);
        match(lastCheck, /^The check passed/, 'a passing check');
        return { calls: [{ name: 'finish', input: { summary: `Fixed the import of ${seen.name}.` } }] };
      },
    ];
  },
  async verify(worktree) {
    const changes = await expectChanges(worktree, [`1\t1\t${BROKEN_FILE}`], []);
    if (changes) return changes;
    return /^The check passed/.test(lastCheck) ? null : `the last check: ${lastCheck.slice(0, 200)}`;
  },
};

export const TASKS: readonly BenchTask[] = [bigFileFunction, addModule, fixCheck];

/** The check as the step runs it: `node scripts/check-imports.mjs` in the worktree, a child process. */
export function runCheck(
  worktree: string,
  files: string[] = [],
  signal?: AbortSignal,
): Promise<CheckRunOutcome> {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, [CHECK_SCRIPT, ...files], {
      cwd: worktree,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal ? { signal } : {}),
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        passed: code === 0,
        exitCode: code,
        timedOut: false,
        durationMs: performance.now() - began,
        tail: output.slice(-2000),
      }),
    );
  });
}
