import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GraphResponse } from '@/contracts/graph.js';
import { projects } from '@/server/db/schema.js';
import { createTestApp, signedInClient, type TestApp } from '@/server/testing/test-app.js';
import { commitFiles, head } from '../workspace/test-repo.js';
import { graphView } from './graph-view.js';

let t: TestApp;
let owner: Awaited<ReturnType<typeof signedInClient>>;
let repoPath: string;
const UPSTREAM = 'https://github.com/Acme/Shop.git';

beforeAll(async () => {
  t = await createTestApp();
  owner = await signedInClient(t.app);
  const [row] = await t.deps.db
    .update(projects)
    .set({ repoUrl: UPSTREAM })
    .where(eq(projects.id, owner.projectId))
    .returning();
  repoPath = row?.repoPath ?? '';
  await commitFiles(
    repoPath,
    {
      'src/main.ts': "import { util } from './util';\nexport const x = util;\n",
      'src/util.ts': 'export const util = 1;\n',
    },
    'two files',
  );
});

afterAll(async () => {
  await t.close();
});

const url = (repoUrl: string, branch = 'main') =>
  `/api/graph?repo_url=${encodeURIComponent(repoUrl)}&branch=${encodeURIComponent(branch)}`;

describe('GET /api/graph', () => {
  it("answers seed 003's shape for the project's own remote, version = the branch head", async () => {
    const res = await owner.client.get<GraphResponse>(url(`http://localhost/git/${owner.projectId}.git`));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      nodes: [
        { id: 'src/main.ts', type: 'file' },
        { id: 'src/util.ts', type: 'file' },
      ],
      edges: [{ source: 'src/main.ts', target: 'src/util.ts', type: 'import' }],
      locks: {},
      version: await head(repoPath),
      warnings: [],
    });
  });

  it('names the project by its upstream URL in any spelling (ssh, case of the host, no .git)', async () => {
    for (const spelling of ['git@GitHub.com:Acme/Shop', 'https://user@github.com/Acme/Shop/', UPSTREAM]) {
      const res = await owner.client.get<GraphResponse>(url(spelling));
      expect(res.status, spelling).toBe(200);
      expect(res.body.version).toBe(await head(repoPath));
    }
  });

  it('follows the head when it moves', async () => {
    const commit = await commitFiles(
      repoPath,
      { 'src/util.ts': "import './extra';\n", 'src/extra.ts': '' },
      'more',
    );
    const res = await owner.client.get<GraphResponse>(url(UPSTREAM));
    expect(res.body.version).toBe(commit);
    expect(res.body.edges).toContainEqual({ source: 'src/util.ts', target: 'src/extra.ts', type: 'import' });
  });

  it("answers 404 REPO_NOT_FOUND for another user's repository and for an unknown one", async () => {
    const other = await signedInClient(t.app);
    for (const repoUrl of [
      UPSTREAM,
      `http://localhost/git/${owner.projectId}.git`,
      'https://github.com/x/y',
    ]) {
      const res = await other.client.get(url(repoUrl));
      expect(res.status, repoUrl).toBe(404);
      expect(res.body).toMatchObject({ error: 'REPO_NOT_FOUND' });
    }
    // Whatever host spells the remote, the project is looked up among the caller's own.
    const foreign = await other.client.get(url(`https://evil.example/git/${owner.projectId}.git`));
    expect(foreign.status).toBe(404);
  });

  it('answers 404 BRANCH_NOT_FOUND for a missing branch and 400 without its parameters', async () => {
    const missing = await owner.client.get(url(UPSTREAM, 'nope'));
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: 'BRANCH_NOT_FOUND' });
    expect((await owner.client.get(url(UPSTREAM, '--output=x'))).status).toBe(404);
    expect((await owner.client.get('/api/graph?branch=main')).status).toBe(400);
  });

  it('needs a session', async () => {
    const res = await t.app.request(`http://localhost${url(UPSTREAM)}`, { headers: { host: 'localhost' } });
    expect(res.status).toBe(401);
  });

  it('overlays the locks the lock store gives for the branch', async () => {
    const view = await graphView(
      t.deps.graphs,
      { id: owner.projectId, repoPath },
      'main',
      (projectId, branch) => ({
        'src/util.ts': { user: `${projectId}:${branch}`, status: 'WRITING', message: 'Refactoring util' },
      }),
    );
    expect(view.locks).toEqual({
      'src/util.ts': { user: `${owner.projectId}:main`, status: 'WRITING', message: 'Refactoring util' },
    });
  });
});
