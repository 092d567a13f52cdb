import { StringDecoder } from 'node:string_decoder';
import { guardGrowth } from './growth-guard.js';
import { OutputTail } from './output-tail.js';
import type { OutputStream, RunOptions, RunResult, SandboxedProcess, SpawnOptions } from './sandbox-types.js';

/** Longest piece of output handed to `onOutput` at once, in characters. */
export const MAX_OUTPUT_CHUNK = 16_384;

/**
 * Runs a sandboxed process to its end (or its timeout, or the abort): its output streamed in
 * pieces and its last 4 KB kept, and how it ended, a limit's reason included.
 */
export async function runToEnd(
  spawnSandboxed: (options: SpawnOptions) => Promise<SandboxedProcess>,
  options: RunOptions,
  /** The most the worktree may grow in this step, in bytes; undefined: no cap. */
  growthCapBytes?: number,
): Promise<RunResult> {
  const started = performance.now();
  const tail = new OutputTail();
  if (options.signal?.aborted) {
    return { exitCode: null, timedOut: false, aborted: true, durationMs: 0, tail: '' };
  }
  let grewPast: string | null = null;
  const growth =
    growthCapBytes === undefined
      ? null
      : await guardGrowth(options.cwd, growthCapBytes, (reason) => {
          grewPast = reason;
          void proc.stop();
        });
  let proc: SandboxedProcess;
  try {
    proc = await spawnSandboxed(options);
  } catch (error) {
    await growth?.finish();
    throw error;
  }
  let timedOut = false;
  let aborted = false;
  const forward = (stream: OutputStream) => {
    const decoder = new StringDecoder('utf8');
    const emit = (text: string) => {
      for (let at = 0; at < text.length; ) {
        let end = Math.min(at + MAX_OUTPUT_CHUNK, text.length);
        // Never split a surrogate pair between two pieces.
        if (end < text.length && /[\uDC00-\uDFFF]/.test(text.charAt(end))) end--;
        options.onOutput?.(stream, text.slice(at, end));
        at = end;
      }
    };
    proc.child[stream]?.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      if (options.onOutput) emit(decoder.write(chunk));
    });
    proc.child[stream]?.on('end', () => {
      if (options.onOutput) emit(decoder.end());
    });
  };
  forward('stdout');
  forward('stderr');
  const timer = setTimeout(() => {
    timedOut = true;
    void proc.stop();
  }, options.timeoutMs);
  const onAbort = () => {
    aborted = true;
    void proc.stop();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const ended = await proc.exited;
    const grown = (await growth?.finish()) ?? null;
    const limit = ended.limit ?? grewPast ?? grown ?? undefined;
    const exit = limit ? { ...ended, limit } : ended;
    if (exit.error) tail.push(Buffer.from(`could not start ${options.command[0]}: ${exit.error}\n`));
    const note = exit.exitCode !== 0 && !aborted ? (proc.networkNote?.(tail.text()) ?? null) : null;
    if (note) {
      tail.push(Buffer.from(`\n${note}\n`));
      options.onOutput?.('stderr', `\n${note}\n`);
    }
    if (exit.limit) {
      tail.push(Buffer.from(`\n${exit.limit}\n`));
      options.onOutput?.('stderr', `\n${exit.limit}\n`);
    }
    return {
      exitCode: timedOut || aborted ? null : exit.exitCode,
      timedOut,
      aborted,
      durationMs: Math.round(performance.now() - started),
      tail: tail.text(),
      ...(exit.limit ? { limit: exit.limit } : {}),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}
