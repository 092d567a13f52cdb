import type { CheckLogData, CheckResultData } from '@/contracts/pipeline.js';
import type { OutputStream, Sandbox } from '@/server/modules/sandbox/sandbox.js';
import { findNestedGit, nestedGitProblem } from '@/server/modules/workspace/nested-git.js';

/** A check-log event carries at most this many characters. */
export const CHECK_LOG_CHUNK = 16_384;
/** Output is streamed up to this many characters per check; the rest only reaches the tail. */
export const CHECK_LOG_LIMIT = 1024 * 1024;
/** Output is gathered this long into one check-log event (a test runner prints line by line). */
const COALESCE_MS = 50;

export type CheckEvent =
  | { type: 'check-log'; data: CheckLogData }
  | { type: 'check-result'; data: CheckResultData };

export interface CheckSettings {
  /** Run with `sh -c` in the worktree (the project's `checkCommand`). */
  command: string;
  /** The check is stopped, and fails, after this many seconds (`checkTimeoutSeconds`). */
  timeoutSeconds: number;
  /** The project's network allow-list (`sandboxAllowedHosts`); null or absent: the operator's. */
  allowedHosts?: readonly string[] | null;
}

/** What the check runner needs of the sandbox: running a process to its end. */
export type CheckSandbox = Pick<Sandbox, 'run'>;

export interface RunCheckOptions {
  sandbox: CheckSandbox;
  runId: string;
  worktree: string;
  check: CheckSettings;
  /** Cancelling the run stops the check and its children. */
  signal?: AbortSignal;
  /** Visible read-only inside the sandbox, e.g. the project's git directory the worktree points to. */
  readOnlyPaths?: readonly string[];
  /** Writable inside besides the worktree (a setup's package-manager cache), and variables naming them. */
  writablePaths?: readonly string[];
  env?: Record<string, string>;
  now: () => number;
  /** Receives the check-log events in order, then exactly one check-result. */
  emit: (event: CheckEvent) => void;
}

/**
 * Runs the repository's own check in the run's worktree, through the sandbox, streaming its output
 * as check-log events and ending with check-result. A check that cannot run (sandbox off) throws
 * before any event.
 *
 * A check that leaves a nested git repository in the worktree fails, whatever its exit code: the
 * result says where (`nestedRepository`, also the end of its log and tail), and the server runs no
 * git on that tree (see workspace/nested-git.ts).
 */
export async function runCheck(options: RunCheckOptions): Promise<CheckResultData> {
  const { runId, emit, now } = options;
  let pending: { stream: OutputStream; text: string } | null = null;
  let timer: NodeJS.Timeout | undefined;
  let streamed = 0;
  let capped = false;

  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!pending) return;
    const { stream, text } = pending;
    pending = null;
    for (let at = 0; at < text.length; at += CHECK_LOG_CHUNK) {
      emit({
        type: 'check-log',
        data: { runId, stream, chunk: text.slice(at, at + CHECK_LOG_CHUNK), timestamp: now() },
      });
    }
  };

  const onOutput = (stream: OutputStream, chunk: string) => {
    if (capped) return;
    let text = chunk;
    if (streamed + text.length > CHECK_LOG_LIMIT) {
      text = text.slice(0, CHECK_LOG_LIMIT - streamed);
      capped = true;
    }
    streamed += text.length;
    // Consecutive pieces of one stream become one event; a piece of the other stream ends it, so
    // stdout and stderr stay in the order they were written.
    if (pending && pending.stream !== stream) flush();
    pending = pending ? { stream, text: pending.text + text } : { stream, text };
    if (capped) {
      pending.text += `\n[check output past ${CHECK_LOG_LIMIT / 1024 / 1024} MiB is not shown; its end is in the result]\n`;
      flush();
    } else if (pending.text.length >= CHECK_LOG_CHUNK) flush();
    else timer ??= setTimeout(flush, COALESCE_MS);
  };

  try {
    const result = await options.sandbox.run({
      command: ['sh', '-c', options.check.command],
      cwd: options.worktree,
      timeoutMs: options.check.timeoutSeconds * 1000,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.readOnlyPaths ? { readOnlyPaths: options.readOnlyPaths } : {}),
      ...(options.writablePaths ? { writablePaths: options.writablePaths } : {}),
      ...(options.env ? { env: options.env } : {}),
      allowedHosts: options.check.allowedHosts ?? null,
      onOutput,
    });
    flush();
    const nested = nestedGitProblem(await findNestedGit(options.worktree), 'the check left');
    if (nested)
      emit({
        type: 'check-log',
        data: { runId, stream: 'stderr', chunk: `\n${nested}\n`, timestamp: now() },
      });
    const data: CheckResultData = {
      runId,
      exitCode: result.exitCode,
      passed: result.exitCode === 0 && !result.timedOut && !result.aborted && !result.limit && !nested,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      tail: nested ? `${result.tail}\n${nested}\n` : result.tail,
      ...(nested ? { nestedRepository: nested } : {}),
      timestamp: now(),
    };
    emit({ type: 'check-result', data });
    return data;
  } finally {
    clearTimeout(timer);
  }
}
