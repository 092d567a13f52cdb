/**
 * Runs the probe of sandbox-probe.ts in a bubblewrap sandbox from this process, and prints the
 * result as one JSON line. The sandbox tests start it as a normal user (when they run as root), so
 * that the sandbox of a server that is not root is tried too: `node --import tsx
 * sandbox-probe.main.ts <host port>`.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createSandbox } from './sandbox.js';
import { findBwrap } from './sandbox-mode.js';
import { probeScript } from './sandbox-probe.js';
import { sandboxFixture } from './sandbox-testing.js';

const PATH = '/usr/local/bin:/usr/bin:/bin';
const hostPort = Number(process.argv[2]);
const fx = await sandboxFixture();
const sandbox = createSandbox({
  mode: 'bwrap',
  bwrapPath: findBwrap(PATH),
  path: PATH,
  hidden: [fx.dataDir],
});
try {
  const result = await sandbox.run({
    command: ['sh', '-c', probeScript({ hostPort, mountSource: path.dirname(fx.dataDir) })],
    cwd: fx.worktree,
    timeoutMs: 60_000,
  });
  process.stdout.write(`${JSON.stringify({ exitCode: result.exitCode, tail: result.tail })}\n`);
} finally {
  await sandbox.close();
  await rm(fx.root, { recursive: true, force: true });
}
