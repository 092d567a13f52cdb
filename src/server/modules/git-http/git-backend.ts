import { spawn } from 'node:child_process';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { inheritedPaths } from '@/server/env.js';
import { HARDENED_GIT_ENV, hardenedGitArgs } from '@/server/lib/git-hardening.js';

/** The largest request body (a push's pack) accepted, in bytes. */
export const MAX_PUSH_BYTES = 100 * 1024 * 1024;
/** One request (a clone's pack, a push) is stopped after this long. */
export const GIT_HTTP_TIMEOUT_MS = 10 * 60_000;
/** The CGI's headers must fit in this many bytes. */
const MAX_CGI_HEADER_BYTES = 64 * 1024;

export interface GitBackendRequest {
  /** The project's repository (non-bare: its `.git` inside). */
  repoPath: string;
  /** What follows `<projectId>.git` in the URL: `/info/refs`, `/git-upload-pack`… */
  subPath: string;
  method: string;
  query: string;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
  /** Who pushes: git allows receive-pack only when it is set. */
  remoteUser: string;
  signal: AbortSignal;
  maxBodyBytes?: number;
  timeoutMs?: number;
  /** Called once git has exited, whatever the outcome (a push's refs are then final). */
  onExit?: () => void;
  /** Settings of this request (`name=value`), after the hardened ones and the backend's own: they win. */
  config?: readonly string[];
  /** Variables for git and what it runs (a push's hook), on top of the backend's own. */
  env?: Readonly<Record<string, string>>;
  /** Rewrites the answer's body, after the CGI headers (a push's report). */
  mapBody?: (chunks: AsyncIterable<Buffer>) => AsyncIterable<Buffer>;
}

/**
 * git's command line for one request. Settings given with `-c` outrank every config file (the
 * repository's included) and reach the git processes http-backend starts; a later one wins:
 * - the hardened configuration (lib/git-hardening.ts: no hooks, no fsmonitor, no helpers…);
 * - a push to the checked-out branch updates the working tree (refused when it has local changes);
 * - pushed objects are checked, and a pack past the cap is refused by git with a clear message;
 * - then the request's own (a push: our pre-receive hook, see push-policy.ts).
 */
function backendArgs(maxBodyBytes: number, extra: readonly string[]): string[] {
  const settings = [
    'receive.denyCurrentBranch=updateInstead',
    'receive.fsckObjects=true',
    `receive.maxInputSize=${maxBodyBytes}`,
    ...extra,
  ];
  return [...hardenedGitArgs(), ...settings.flatMap((pair) => ['-c', pair]), 'http-backend'];
}

/** Counts the bytes going through; past `max`, fails the stream. */
function byteCap(max: number, onOver: () => void) {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > max) {
        onOver();
        callback(new Error('request body too large'));
        return;
      }
      callback(null, chunk);
    },
  });
}

function parseCgiHeaders(text: string): { status: number; headers: Headers } {
  const headers = new Headers();
  let status = 200;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
    else headers.append(name, value);
  }
  return { status, headers };
}

/**
 * One smart-HTTP request answered by `git http-backend` (the CGI git ships; the protocol is git's).
 * No shell; an environment of its own (none of the server's variables or credentials, no global or
 * system git config) and the hardened git configuration; the request body streamed in under a cap,
 * the answer streamed out; killed on timeout or when the client goes away.
 *
 * Spawned directly rather than through the launcher of lib/spawner.ts: that one returns a
 * command's whole output at its end, and a pack must stream both ways.
 */
export async function runGitBackend(request: GitBackendRequest): Promise<Response> {
  const maxBodyBytes = request.maxBodyBytes ?? MAX_PUSH_BYTES;
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > maxBodyBytes) {
    return new Response(`Request body larger than ${maxBodyBytes} bytes\n`, { status: 413 });
  }
  const root = path.dirname(request.repoPath);
  const env: Record<string, string> = {
    ...request.env,
    PATH: inheritedPaths().path,
    HOME: root,
    ...HARDENED_GIT_ENV,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: '1',
    PATH_INFO: `/${path.basename(request.repoPath)}${request.subPath}`,
    REQUEST_METHOD: request.method,
    QUERY_STRING: request.query,
    CONTENT_TYPE: request.headers.get('content-type') ?? '',
    REMOTE_USER: request.remoteUser,
    REMOTE_ADDR: '127.0.0.1',
  };
  const protocol = request.headers.get('git-protocol');
  if (protocol) env.GIT_PROTOCOL = protocol;
  const encoding = request.headers.get('content-encoding');
  if (encoding) env.HTTP_CONTENT_ENCODING = encoding;
  if (request.headers.get('content-length')) env.CONTENT_LENGTH = String(declared);

  const child = spawn('git', backendArgs(maxBodyBytes, request.config ?? []), {
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let tooLarge = false;
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const timer = setTimeout(kill, request.timeoutMs ?? GIT_HTTP_TIMEOUT_MS);
  request.signal.addEventListener('abort', kill, { once: true });
  child.on('close', () => {
    clearTimeout(timer);
    request.signal.removeEventListener('abort', kill);
    request.onExit?.();
  });
  child.on('error', kill);
  child.stderr.resume(); // git's complaints go to the client through the protocol; drop the rest
  child.stdin.on('error', () => {}); // git may exit before reading everything (a refused push)

  if (request.body) {
    const cap = byteCap(maxBodyBytes, () => {
      tooLarge = true;
      kill();
    });
    const input = Readable.fromWeb(request.body as import('node:stream/web').ReadableStream);
    input.on('error', kill);
    cap.on('error', () => child.stdin.destroy());
    input.pipe(cap).pipe(child.stdin);
  } else {
    child.stdin.end();
  }

  const chunks = child.stdout[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let head = Buffer.alloc(0);
  let end = -1;
  while (end < 0) {
    const next = await chunks.next();
    if (next.done) break;
    head = Buffer.concat([head, next.value]);
    end = head.indexOf('\r\n\r\n');
    if (end < 0 && head.length > MAX_CGI_HEADER_BYTES) break;
  }
  if (end < 0) {
    kill();
    if (tooLarge) return new Response(`Request body larger than ${maxBodyBytes} bytes\n`, { status: 413 });
    return new Response('git http-backend failed\n', { status: 500 });
  }
  const { status, headers } = parseCgiHeaders(head.subarray(0, end).toString('latin1'));
  const rest = head.subarray(end + 4);
  async function* answer(): AsyncGenerator<Buffer> {
    if (rest.length > 0) yield rest;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
  }
  const output = (request.mapBody ? request.mapBody(answer()) : answer())[Symbol.asyncIterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await output.next();
        if (next.done) controller.close();
        else if (next.value.length > 0) controller.enqueue(new Uint8Array(next.value));
      } catch (error) {
        controller.error(error);
      }
    },
    cancel() {
      kill();
      void output.return?.(undefined);
    },
  });
  return new Response(request.method === 'HEAD' ? null : body, { status, headers });
}
