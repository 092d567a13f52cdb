import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BACKGROUND_NICENESS } from './background-priority.js';
import { CommandError, runCommand } from './spawner.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const base = { env, timeoutMs: 10_000, maxOutputBytes: 1024 * 1024 };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function eventually(check: () => boolean, what: string) {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for: ${what}`);
}

describe('runCommand', () => {
  it.skipIf(process.platform !== 'linux')(
    'runs commands below the server’s priority, so the event loop gets the CPU first',
    async () => {
      const result = await runCommand({ ...base, command: 'cat', args: ['/proc/self/stat'] });
      // Field 19 of /proc/<pid>/stat is the niceness; the command's name (field 2) has no spaces here.
      const nice = Number(result.stdout.toString('utf8').split(' ')[18]);
      const own = Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ')[16]);
      expect(nice).toBe(Math.min(19, own + BACKGROUND_NICENESS));
    },
  );

  it('runs the command in the launcher, not in this process, and returns its output and code', async () => {
    const result = await runCommand({
      ...base,
      command: 'sh',
      args: ['-c', 'echo $PPID; echo oops >&2; exit 3'],
    });
    const parent = Number(result.stdout.toString('utf8').trim());
    expect(parent).toBeGreaterThan(1);
    expect(parent).not.toBe(process.pid);
    expect(result).toMatchObject({ code: 3, stderr: 'oops\n', truncated: false });
  });

  it('cuts stdout at the bound and marks the result truncated', async () => {
    const result = await runCommand({
      ...base,
      maxOutputBytes: 1000,
      command: 'sh',
      args: ['-c', 'yes | head -c 100000'],
    });
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBe(1000);
  });

  it('kills a command at its timeout', async () => {
    const result = await runCommand({ ...base, timeoutMs: 200, command: 'sleep', args: ['30'] });
    expect(result.signal).toBe('SIGKILL');
  });

  it('cancels through an AbortSignal, and says why', async () => {
    const controller = new AbortController();
    const running = runCommand({ ...base, command: 'sleep', args: ['30'], signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await expect(running).rejects.toMatchObject({ name: 'CommandError', aborted: true });
  });

  it('reports a command that cannot start', async () => {
    const error = await runCommand({ ...base, command: 'no-such-command-here', args: [] }).catch((e) => e);
    expect(error).toBeInstanceOf(CommandError);
    expect(error.aborted).toBe(false);
  });

  it('takes its commands down when the process that asked for them is killed', async () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const script = [
      `import { runCommand } from ${JSON.stringify(path.join(here, 'spawner.ts'))};`,
      `void runCommand({ command: 'sh', args: ['-c', 'echo $$; exec sleep 60'], env: { PATH: process.env.PATH }, timeoutMs: 60000, maxOutputBytes: 1000 });`,
      `setInterval(() => {}, 1000);`,
    ].join('\n');
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // The sleep's pid: find it among the launcher's children (the launcher is the parent's child).
    let sleeper = 0;
    await eventually(() => {
      const found = findChildSleep(parent.pid ?? 0);
      if (found) sleeper = found;
      return sleeper > 0;
    }, 'the command started');
    parent.kill('SIGKILL');
    await eventually(() => !alive(sleeper), 'the command ended with its requester');
  }, 30_000);
});

/** The pid of a `sleep 60` among the grandchildren of `pid` (through /proc). */
function findChildSleep(pid: number): number | undefined {
  const parentOf = new Map<number, number>();
  const commandOf = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parentOf.set(Number(entry), Number(fields[1]));
      commandOf.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'utf8'));
    } catch {
      // gone meanwhile
    }
  }
  for (const [child, parent] of parentOf) {
    if (!commandOf.get(child)?.startsWith('sleep\u000060')) continue;
    if (parentOf.get(parent) === pid) return child;
  }
  return undefined;
}
