import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TAIL_BYTES } from '@/server/modules/sandbox/output-tail.js';
import { createSandbox, type Sandbox } from '@/server/modules/sandbox/sandbox.js';
import { findBwrap, resolveSandboxMode } from '@/server/modules/sandbox/sandbox-mode.js';
import {
  pidsRunning,
  type SandboxFixture,
  sandboxFixture,
} from '@/server/modules/sandbox/sandbox-testing.js';
import { CHECK_LOG_LIMIT, type CheckEvent, runCheck } from './check-runner.js';

const PATH = process.env.PATH ?? '/usr/bin:/bin';
const bwrapPath = findBwrap(PATH);
const NOW = 1_790_000_000_000;

let fx: SandboxFixture;
let sandbox: Sandbox;
beforeAll(async () => {
  fx = await sandboxFixture();
  // As the server would run it: bubblewrap when installed.
  const mode = resolveSandboxMode({ requested: undefined, host: '127.0.0.1', bwrapPath });
  sandbox = createSandbox({ mode, bwrapPath, path: PATH, hidden: [fx.dataDir] });
});
afterAll(async () => {
  await sandbox.close();
  await rm(fx.root, { recursive: true, force: true });
});

interface CheckExtra {
  timeoutSeconds?: number;
  signal?: AbortSignal;
  onStarted?: () => void;
}

async function check(command: string, extra: CheckExtra = {}) {
  const events: CheckEvent[] = [];
  const result = await runCheck({
    sandbox,
    runId: 'run-1',
    worktree: fx.worktree,
    check: { command, timeoutSeconds: extra.timeoutSeconds ?? 30 },
    ...(extra.signal ? { signal: extra.signal } : {}),
    now: () => NOW,
    emit: (event) => {
      events.push(event);
      if (event.type === 'check-log' && event.data.chunk.includes('started')) extra.onStarted?.();
    },
  });
  const logs = events.flatMap((e) => (e.type === 'check-log' ? [e.data] : []));
  return {
    result,
    events,
    logs,
    text: (stream: string) =>
      logs
        .filter((l) => l.stream === stream)
        .map((l) => l.chunk)
        .join(''),
  };
}

describe('the check runner', () => {
  it('streams the output as check-log events, then one check-result', async () => {
    const { result, events, text } = await check('echo all good; echo a warning >&2');
    expect(text('stdout')).toBe('all good\n');
    expect(text('stderr')).toBe('a warning\n');
    expect(events.at(-1)).toEqual({ type: 'check-result', data: result });
    expect(events.filter((e) => e.type === 'check-result')).toHaveLength(1);
    expect(result).toMatchObject({
      runId: 'run-1',
      exitCode: 0,
      passed: true,
      timedOut: false,
      timestamp: NOW,
    });
    expect(result.tail).toContain('all good');
    expect(result.tail).toContain('a warning');
    for (const log of events.slice(0, -1)) expect(log.data).toMatchObject({ runId: 'run-1', timestamp: NOW });
  });

  it("fails while the repository's test fails, and passes once the code is fixed", async () => {
    const command =
      'test -f fixed.txt || { echo "FAIL: fixed.txt is missing" >&2; exit 1; }; echo "1 passed"';
    const failing = await check(command);
    expect(failing.result).toMatchObject({ exitCode: 1, passed: false, timedOut: false });
    expect(failing.result.tail).toContain('FAIL: fixed.txt is missing');
    await writeFile(path.join(fx.worktree, 'fixed.txt'), 'done\n');
    const passing = await check(command);
    expect(passing.result).toMatchObject({ exitCode: 0, passed: true });
    expect(passing.result.tail).toContain('1 passed');
  });

  it('gathers line-by-line output into few events, in full', async () => {
    const { logs, text } = await check('seq 1 3000');
    expect(text('stdout')).toBe(`${Array.from({ length: 3000 }, (_, i) => i + 1).join('\n')}\n`);
    expect(logs.length).toBeLessThan(50);
  });

  it('streams at most the limit, and keeps the last 4 KB in the tail', async () => {
    const { result, text } = await check(
      `head -c ${CHECK_LOG_LIMIT * 2} /dev/zero | tr '\\0' a; echo; echo THE-END`,
    );
    const streamed = text('stdout');
    expect(streamed.length).toBeLessThan(CHECK_LOG_LIMIT + 200);
    expect(streamed).toContain('is not shown');
    expect(Buffer.byteLength(result.tail)).toBe(TAIL_BYTES);
    expect(result.tail.endsWith('a\nTHE-END\n')).toBe(true);
    expect(result.passed).toBe(true);
  });

  it('fails a check that runs past its time, and stops it with its children', async () => {
    const token = `${300_000 + Math.floor(Math.random() * 99_999)}`;
    const { result } = await check(`sleep ${token} & echo started; wait`, { timeoutSeconds: 1 });
    expect(result).toMatchObject({ exitCode: null, passed: false, timedOut: true });
    expect(result.tail).toContain('started');
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
  });

  it('stops the check and its children when the run is cancelled', async () => {
    const token = `${200_000 + Math.floor(Math.random() * 99_999)}`;
    const controller = new AbortController();
    const { result, events } = await check(`sleep ${token} & echo started; wait`, {
      signal: controller.signal,
      onStarted: () => controller.abort(),
    });
    expect(result).toMatchObject({ exitCode: null, passed: false, timedOut: false });
    expect(events.at(-1)?.type).toBe('check-result');
    expect(await pidsRunning(`sleep ${token}`)).toEqual([]);
  });

  it('fails a check that leaves a nested git repository, whatever its exit code, naming the path', async () => {
    const { result, events, text } = await check(
      'mkdir -p sub/.git vendor/lib && printf "gitdir: /elsewhere\\n" > vendor/lib/.git; echo "all tests passed"',
    );
    expect(result).toMatchObject({ exitCode: 0, passed: false, timedOut: false });
    const sentence =
      'the check left nested git repositories at sub/.git, vendor/lib/.git; AutoCoder does not commit or run git on it';
    expect(result.nestedRepository).toBe(sentence);
    expect(result.tail).toContain('all tests passed');
    expect(result.tail.trimEnd().endsWith(sentence)).toBe(true);
    expect(text('stderr')).toContain(sentence);
    expect(events.at(-1)?.type).toBe('check-result');
    await rm(path.join(fx.worktree, 'sub'), { recursive: true });
    await rm(path.join(fx.worktree, 'vendor'), { recursive: true });
    const clean = await check('echo "all tests passed"');
    expect(clean.result).toMatchObject({ passed: true });
    expect(clean.result.nestedRepository).toBeUndefined();
  });

  it('refuses with SANDBOX_DISABLED, before any event, when the sandbox is off', async () => {
    const events: CheckEvent[] = [];
    const attempt = runCheck({
      sandbox: createSandbox({ mode: 'off', bwrapPath: null, path: PATH, hidden: [] }),
      runId: 'run-1',
      worktree: fx.worktree,
      check: { command: 'true', timeoutSeconds: 10 },
      now: () => NOW,
      emit: (event) => events.push(event),
    });
    await expect(attempt).rejects.toMatchObject({ code: 'SANDBOX_DISABLED', status: 400 });
    expect(events).toEqual([]);
  });
});
