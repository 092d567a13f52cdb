import { spawn } from 'node:child_process';

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

export interface GitOptions {
  cwd?: string;
  /** Kills git (and fails) after this many ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Largest stdout kept, in bytes; past it git is stopped and the result marked truncated. */
  maxOutputBytes?: number;
}

export interface GitResult {
  stdout: Buffer;
  truncated: boolean;
}

/** Commits made by AutoCoder itself, whoever the machine's git user is. */
const IDENTITY = ['-c', 'user.name=AutoCoder', '-c', 'user.email=autocoder@localhost'];

/**
 * Runs git without a shell. Prompts are disabled (a clone that needs credentials fails
 * instead of hanging) and the `ext::` transport is refused.
 */
export function git(args: string[], options: GitOptions = {}): Promise<GitResult> {
  const { cwd, timeoutMs = 60_000, signal, maxOutputBytes = 64 * 1024 * 1024 } = options;
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...IDENTITY, '-c', 'protocol.ext.allow=never', ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        LANG: 'C',
        GIT_TERMINAL_PROMPT: '0',
        GIT_ASKPASS: 'echo',
        SSH_ASKPASS: 'echo',
        GIT_SSH_COMMAND: 'ssh -o BatchMode=yes -o ConnectTimeout=15',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (truncated) return;
      size += chunk.length;
      if (size > maxOutputBytes) {
        truncated = true;
        chunks.push(chunk.subarray(0, chunk.length - (size - maxOutputBytes)));
        child.kill('SIGKILL');
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 16_384) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      const aborted = error.name === 'AbortError';
      reject(
        new GitError(aborted ? 'git was cancelled' : `git could not run: ${error.message}`, null, stderr),
      );
    });
    child.on('close', (code, sig) => {
      if (truncated) return resolve({ stdout: Buffer.concat(chunks), truncated });
      if (code === 0) return resolve({ stdout: Buffer.concat(chunks), truncated });
      const reason =
        sig === 'SIGKILL' || sig === 'SIGTERM' ? `git ${args[0]} timed out` : `git ${args[0]} failed`;
      reject(
        new GitError(`${reason}: ${stderr.trim().split('\n').slice(-3).join(' ')}`.trim(), code, stderr),
      );
    });
  });
}

export async function gitText(args: string[], options: GitOptions = {}): Promise<string> {
  const { stdout } = await git(args, options);
  return stdout.toString('utf8');
}
