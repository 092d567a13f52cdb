import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHttpHost, startGitHttpHost } from '@/server/testing/git-http-host.js';
import { type ServerProcess, startServerProcess } from '@/server/testing/server-process.js';

const run = promisify(execFile);

let server: ServerProcess;
let host: GitHttpHost;
const dirs: string[] = [];

beforeAll(async () => {
  const [root, home, dataDir] = await Promise.all(
    ['git-root', 'operator-home', 'data'].map((name) => mkdtemp(path.join(tmpdir(), `autocoder-${name}-`))),
  );
  dirs.push(root as string, home as string, dataDir as string);
  await run('git', ['init', '--quiet', '--bare', path.join(root as string, 'private.git')]);
  host = await startGitHttpHost({ root: root as string, requireAuth: true });
  // The operator's HOME holds stored credentials for that very host and an extra header for every request.
  await writeFile(
    path.join(home as string, '.gitconfig'),
    '[credential]\n\thelper = store\n[http]\n\textraHeader = Authorization: Bearer operator-header-secret\n',
  );
  await writeFile(
    path.join(home as string, '.git-credentials'),
    `http://operator:operator-stored-secret@${new URL(host.url).host}\n`,
    { mode: 0o600 },
  );
  server = await startServerProcess({ HOME: home as string, AUTOCODER_DATA_DIR: dataDir as string });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await host?.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("a clone of a user's URL by the server process", () => {
  it("sends none of the credentials in the operator's HOME, and fails with a clear error", async () => {
    const base = server.url;
    const reg = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { origin: base, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'user@example.com', password: 'password-123' }),
    });
    expect(reg.status).toBe(201);
    const cookie = (reg.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const res = await fetch(`${base}/api/projects`, {
      method: 'POST',
      headers: { origin: base, cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'private', repoUrl: `${host.url}/private.git` }),
    });
    const body = (await res.json()) as { error: string; message: string };
    expect(res.status).toBe(422);
    expect(body.error).toBe('REPO_IMPORT_FAILED');
    expect(body.message).toMatch(/asks for credentials/);
    expect(host.requests.length).toBeGreaterThan(0);
    for (const request of host.requests) expect(request.headers.authorization).toBeUndefined();
  });
});
