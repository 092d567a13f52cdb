import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Every line the server logged so far. */
  lines: string[];
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Runs the real server (src/server/main.ts through tsx) as a child process on a free port
 * and resolves once it listens. Used by tests that need a real socket, signals or restarts.
 */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 60_000,
  /** Run the server as this user (the test runs as root). */
  as?: { uid: number; gid: number },
): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/server/main.ts')], {
    cwd: root,
    ...(as ? { uid: as.uid, gid: as.gid } : {}),
    // The harness reads the "listening" line, logged at info.
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server that did not come up is not left behind to write into a data dir being removed.
      child.kill('SIGKILL');
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${lines.join('\n')}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        lines.push(line);
        const match = /"msg":"AutoCoder is listening","url":"([^"]+)"/.exec(line);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${lines.join('\n')}`));
    });
  });
  return {
    url,
    child,
    lines,
    exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}
