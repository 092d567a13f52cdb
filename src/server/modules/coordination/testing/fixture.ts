import { afterAll, beforeAll, expect } from 'vitest';
import type { CheckStatusResponse, PostStatusResponse } from '@/contracts/coordination.js';
import { gitText } from '@/server/lib/git.js';
import { createTestApp, signedInClient, type TestApp, type TestClient } from '@/server/testing/test-app.js';
import { repositoryPath } from '../../workspace/repository.js';
import { commitFiles } from '../../workspace/test-repo.js';
import type { LockStore } from '../lock-store.js';
import { tinyGraph } from './tiny-graph.js';

/**
 * The world of the REST tests: the real app over the given lock store, a user whose project's real
 * repository holds `src/app.ts` → `src/auth.ts` → `src/db.ts` (imports) and `src/other.ts`, and the
 * app's movable clock. Filled by `useCoordinationApp` before the tests of a file run.
 */
export interface CoordinationFixture {
  t: TestApp;
  owner: TestClient;
  projectId: string;
  repo: string;
  /** AutoCoder's own remote of the project. */
  cloneUrl: string;
  /** The head after the sources were committed. */
  head0: string;
}

export const fx = {} as CoordinationFixture;

export function useCoordinationApp(makeStore: () => LockStore) {
  beforeAll(async () => {
    const t = await createTestApp({
      runtime: { neighbours: tinyGraph(), lockStore: makeStore() },
    });
    const signedIn = await signedInClient(t.app);
    const repo = repositoryPath(t.deps.dataDir, signedIn.projectId);
    const head0 = await commitFiles(
      repo,
      {
        'src/db.ts': 'export const db = {};\n',
        'src/auth.ts': "import { db } from './db';\nexport const auth = db;\n",
        'src/app.ts': "import { auth } from './auth.js';\nexport default auth;\n",
        'src/other.ts': 'export const other = 1;\n',
      },
      'Add sources',
    );
    Object.assign(fx, {
      t,
      owner: signedIn.client,
      projectId: signedIn.projectId,
      repo,
      cloneUrl: `http://localhost/git/${signedIn.projectId}.git`,
      head0,
    });
  });
  afterAll(async () => {
    await fx.t.close();
  });
}

/** An agent: a bearer token of the owner's, posting JSON as an SDK would (no cookie, no Origin). */
export class AgentClient {
  constructor(
    readonly id: string,
    readonly name: string,
    readonly token: string,
  ) {}
  async call<T>(route: 'check_status' | 'post_status', body: Record<string, unknown>) {
    const res = await fx.t.app.request(`http://localhost/api/${route}`, {
      method: 'POST',
      headers: {
        host: 'localhost',
        authorization: `Bearer ${this.token}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ repo_url: fx.cloneUrl, branch: 'main', ...body }),
    });
    return { status: res.status, body: (await res.json()) as T };
  }
  check(files: string[], extra: Record<string, unknown> = {}) {
    return this.call<CheckStatusResponse>('check_status', { file_paths: files, ...extra });
  }
  post(files: string[], status: string, message: string, extra: Record<string, unknown> = {}) {
    return this.call<PostStatusResponse>('post_status', { file_paths: files, status, message, ...extra });
  }
}

/** A new agent identity: a token the owner creates in Settings. */
export async function newAgent(name: string) {
  const res = await fx.owner.post<{ id: string; name: string; token: string }>('/api/tokens', { name });
  expect(res.status).toBe(201);
  return new AgentClient(res.body.id, res.body.name, res.body.token);
}

export const ttl = () => fx.t.deps.coordination.lockTtlMs;
export const branchHead = async () =>
  (await gitText(['rev-parse', 'refs/heads/main'], { cwd: fx.repo })).trim();
