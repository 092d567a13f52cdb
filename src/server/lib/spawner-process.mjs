// The launcher process of lib/spawner.ts: it starts the commands the server asks for (git) and
// sends back their output. It exists because fork+exec from the server's own, large process holds
// the server's event loop for 5-25 ms per command; from this small process it holds nothing of the
// server's. Plain JavaScript, so it runs the same beside the sources and beside the bundle.
//
// Protocol (IPC, advanced serialization):
//   in:  { op: 'run', id, command, args, cwd, env, timeoutMs, maxOutputBytes, input? }
//        { op: 'kill', id }
//   out: { id, stdout: Buffer, stderr: string, code, signal, truncated, error? }
import { spawn } from 'node:child_process';

const running = new Map();
const STDERR_KEPT = 16_384;

function run(message) {
  const { id, command, args, cwd, env, timeoutMs, maxOutputBytes, input } = message;
  let child;
  try {
    child = spawn(command, args, {
      cwd,
      env,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    });
  } catch (error) {
    process.send({
      id,
      stdout: Buffer.alloc(0),
      stderr: '',
      code: null,
      signal: null,
      truncated: false,
      error: String(error?.message ?? error),
    });
    return;
  }
  running.set(id, child);
  if (input !== undefined) {
    // A command that exits before reading all of its input closes the pipe: that is its answer, not ours.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  }
  const chunks = [];
  let size = 0;
  let truncated = false;
  let stderr = '';
  let failed;
  child.stdout.on('data', (chunk) => {
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
  child.stderr.on('data', (chunk) => {
    if (stderr.length < STDERR_KEPT) stderr += chunk.toString('utf8');
  });
  child.on('error', (error) => {
    failed = error.message;
  });
  child.on('close', (code, signal) => {
    running.delete(id);
    process.send({ id, stdout: Buffer.concat(chunks), stderr, code, signal, truncated, error: failed });
  });
}

process.on('message', (message) => {
  if (message.op === 'run') run(message);
  else if (message.op === 'kill') running.get(message.id)?.kill('SIGKILL');
});

// The server is gone (exit, crash, SIGKILL): take its commands down with it.
process.on('disconnect', () => {
  for (const child of running.values()) child.kill('SIGKILL');
  process.exit(0);
});
