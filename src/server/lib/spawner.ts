import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInBackground } from './background-priority.js';

/**
 * Runs commands (git) from a small launcher process instead of the server's own.
 *
 * Starting a process from Node forks the whole parent: from a server of a few hundred MB that
 * holds its event loop for 5-25 ms per command, and a run issues dozens of git commands, so SSE
 * delivery and every request wait behind them. The launcher (`spawner-process.mjs`) is forked
 * once, on first use, and forks cheaply; the server only exchanges messages with it. When the
 * server dies, the launcher sees its channel close and kills what it runs.
 */
export interface CommandRequest {
  command: string;
  args: string[];
  cwd?: string | undefined;
  env: NodeJS.ProcessEnv;
  /** The command is killed (SIGKILL) after this many ms. */
  timeoutMs: number;
  /** stdout past this many bytes is cut, the command killed and the result marked truncated. */
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
  /** Written to the command's stdin, which is then closed; without it stdin is /dev/null. */
  input?: Buffer | string | undefined;
}

export interface CommandResult {
  stdout: Buffer;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  truncated: boolean;
}

/** The command could not be started, or was cancelled through its AbortSignal (`aborted`). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly aborted: boolean,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'CommandError';
  }
}

interface Reply extends CommandResult {
  id: number;
  error?: string;
}

interface Pending {
  resolve: (reply: Reply) => void;
  reject: (error: Error) => void;
}

/** The launcher script, beside this file in source (src/server/lib) and in the bundle (dist/server). */
function launcherFile(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.join(here, 'spawner-process.mjs'), path.join(here, 'lib', 'spawner-process.mjs')];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`the command launcher was not found (looked in ${candidates.join(', ')})`);
  return found;
}

class Launcher {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  exited = false;

  constructor() {
    this.child = fork(launcherFile(), [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // The commands it starts inherit its niceness.
    runInBackground(this.child.pid);
    this.child.on('message', (message: Reply) => {
      const entry = this.pending.get(message.id);
      if (!entry) return;
      this.pending.delete(message.id);
      this.idleCheck();
      entry.resolve(message);
    });
    const gone = (reason: string) => {
      if (this.exited) return;
      this.exited = true;
      for (const entry of this.pending.values()) entry.reject(new Error(reason));
      this.pending.clear();
    };
    this.child.on('exit', (code, signal) => gone(`the command launcher exited (${signal ?? code})`));
    this.child.on('error', (error) => gone(`the command launcher failed: ${error.message}`));
    // Idle, the launcher keeps nothing alive: the server exits when its own work is done.
    this.child.unref();
    this.idleCheck();
  }

  private idleCheck() {
    if (this.pending.size === 0) this.child.channel?.unref();
    else this.child.channel?.ref();
  }

  run(request: Omit<CommandRequest, 'signal'>): { id: number; reply: Promise<Reply> } {
    const id = this.nextId++;
    const reply = new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    this.idleCheck();
    this.child.send({ op: 'run', id, ...request });
    return { id, reply };
  }

  kill(id: number) {
    if (!this.exited) this.child.send({ op: 'kill', id });
  }
}

let launcher: Launcher | undefined;

function currentLauncher(): Launcher {
  if (!launcher || launcher.exited) launcher = new Launcher();
  return launcher;
}

/** Runs one command to its end through the launcher. */
export async function runCommand(request: CommandRequest): Promise<CommandResult> {
  const { signal, ...rest } = request;
  if (signal?.aborted) throw new CommandError('the command was cancelled', true, '');
  const current = currentLauncher();
  const { id, reply } = current.run(rest);
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    current.kill(id);
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await reply;
    if (aborted) throw new CommandError('the command was cancelled', true, result.stderr);
    if (result.error) throw new CommandError(result.error, false, result.stderr);
    return {
      stdout: Buffer.from(result.stdout),
      stderr: result.stderr,
      code: result.code,
      signal: result.signal,
      truncated: result.truncated,
    };
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}
