import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { TaskStatus } from '@/contracts/tasks.js';
import { type App, createApp } from '@/server/app.js';
import { pipelineRuns, projects, tasks } from '@/server/db/schema.js';
import { LOOPBACK_NAMES } from '@/server/http/host-check.js';
import { gitText } from '@/server/lib/git.js';
import { writeService } from '@/server/modules/services/testing/fixture.js';
import { repositoryPath } from '@/server/modules/workspace/repository.js';
import { commitFiles } from '@/server/modules/workspace/test-repo.js';
import {
  createTestApp,
  RELAXED_LIMITS,
  signedInClient,
  type TestApp,
  TestClient,
} from '@/server/testing/test-app.js';

/** A signed-in user and their default project. */
export interface User {
  client: TestClient;
  userId: string;
  projectId: string;
}

type RunValues = Omit<typeof pipelineRuns.$inferInsert, 'taskId'>;

const hosts = () => ({
  own: new Set<string>(),
  ownOnAnyPort: new Set(LOOPBACK_NAMES),
  baseDomain: 'localhost',
});

/** A service that runs until stopped and declares no port. */
export const SLEEPER = '#!/bin/sh\n#---\n# name: Sleeper\n#---\nexec sleep 600\n';

/**
 * What the recipes of error-recipes.ts ask for: the real app (over PGlite, with imports allowed
 * from one directory, addresses checked as on a public server, one service per user), users,
 * tasks, and runs in a given state. A run's state is written to the database as the pipeline
 * would leave it (as tasks.test.ts does): these recipes are about the answers, not the runs.
 */
export class ErrorWorld {
  private services?: Promise<{ workspaceId: string; api: string }>;
  private sleeping?: Promise<void>;
  private others: TestApp[] = [];

  private constructor(
    readonly t: TestApp,
    readonly owner: User,
    /** The directory AUTOCODER_IMPORT_ROOTS allows. */
    readonly importRoot: string,
  ) {}

  static async create(): Promise<ErrorWorld> {
    const importRoot = await mkdtemp(path.join(tmpdir(), 'autocoder-error-recipes-'));
    const t = await createTestApp({
      app: { metricsToken: 'metrics-token-for-tests' },
      runtime: {
        importRoots: [importRoot],
        network: { serverOnLoopback: false, allowedHosts: [] },
        services: { maxRunningPerUser: 1, stopGraceMs: 500 },
      },
    });
    return new ErrorWorld(t, await signedInClient(t.app), importRoot);
  }

  async close() {
    await Promise.all([this.t.close(), ...this.others.map((other) => other.close())]);
    await rm(this.importRoot, { recursive: true, force: true });
  }

  get app(): App {
    return this.t.app;
  }

  /** A client without a session or a token. */
  get anonymous() {
    return new TestClient(this.t.app);
  }

  /** The app over the same dependencies, with the per-address limit already spent. */
  rateLimited(): App {
    const rateLimits = { ...RELAXED_LIMITS, perIp: { max: 0, windowMs: 60_000 } };
    return createApp({ ...this.t.deps, rateLimits }, { hosts });
  }

  /** The app over the same dependencies, whose host rules fail: any request meets an unexpected error. */
  failing(): App {
    return createApp(this.t.deps, {
      hosts: () => {
        throw new Error('injected: the host rules cannot be read');
      },
    });
  }

  /** Another app, as an operator configured it (e.g. AUTOCODER_SANDBOX=off); closed with the world. */
  async otherApp(options: Parameters<typeof createTestApp>[0]): Promise<TestApp> {
    const other = await createTestApp(options);
    this.others.push(other);
    return other;
  }

  user(app: App = this.t.app): Promise<User> {
    return signedInClient(app);
  }

  /** A new task of `user`'s project, in `status` (written as the pipeline would move it). */
  async task(
    user: User = this.owner,
    status: TaskStatus = 'backlog',
    coderEngine?: 'codex',
  ): Promise<string> {
    const res = await user.client.post<{ id: string }>('/api/tasks', {
      projectId: user.projectId,
      title: `Task ${randomUUID().slice(0, 8)}`,
    });
    if (res.status !== 201) throw new Error(`task: ${res.status} ${JSON.stringify(res.body)}`);
    if (status !== 'backlog' || coderEngine) {
      await this.t.database.db
        .update(tasks)
        .set({ status, ...(coderEngine ? { coderEngine } : {}) })
        .where(eq(tasks.id, res.body.id));
    }
    return res.body.id;
  }

  /** A run of the task, as the pipeline would have left it. */
  async run(taskId: string, values: RunValues): Promise<string> {
    const [row] = await this.t.database.db
      .insert(pipelineRuns)
      .values({ taskId, provider: 'simulator', ...values })
      .returning({ id: pipelineRuns.id });
    if (!row) throw new Error('no run inserted');
    return row.id;
  }

  /** A user whose five run slots are taken by paused runs. */
  async userWithoutSlots(): Promise<User> {
    const user = await this.user();
    for (let i = 0; i < 5; i += 1) await this.run(await this.task(user, 'building'), { status: 'paused' });
    return user;
  }

  setDefaultBranch(projectId: string, branch: string) {
    return this.t.database.db
      .update(projects)
      .set({ defaultBranch: branch })
      .where(eq(projects.id, projectId));
  }

  repo(projectId: string) {
    return repositoryPath(this.t.deps.dataDir, projectId);
  }

  /** Commits `files` on `branch` of the project's repository (created from main when new); returns the commit. */
  async commit(projectId: string, branch: string, files: Record<string, string>): Promise<string> {
    const repo = this.repo(projectId);
    const exists = (await gitText(['branch', '--list', branch], { cwd: repo })).trim() !== '';
    await gitText(exists ? ['checkout', '--quiet', branch] : ['checkout', '--quiet', '-b', branch], {
      cwd: repo,
    });
    const head = await commitFiles(repo, files, `Change ${Object.keys(files).join(', ')}`);
    await gitText(['checkout', '--quiet', 'main'], { cwd: repo });
    return head;
  }

  head(projectId: string, rev = 'main') {
    return gitText(['rev-parse', rev], { cwd: this.repo(projectId) }).then((out) => out.trim());
  }

  /** The clone URL agents name the project by. */
  cloneUrl(projectId: string) {
    return `http://localhost/git/${projectId}.git`;
  }

  /** The owner's project checkout as a workspace, holding a passive service, `webapp`, and two sleepers. */
  servicesWorkspace() {
    this.services ??= (async () => {
      const repo = this.repo(this.owner.projectId);
      await mkdir(repo, { recursive: true });
      await writeService(repo, 'webapp', '---\nname: Web App\nhttp: 1\n---\n', 0o644);
      await writeService(repo, 'sleeper', SLEEPER);
      await writeService(repo, 'sleeper2', SLEEPER);
      const workspaceId = await this.workspaceOf(this.owner);
      return { workspaceId, api: `/api/workspaces/${workspaceId}/services` };
    })();
    return this.services;
  }

  /** `sleeper` running: the owner's one service slot taken. */
  sleeperRunning() {
    this.sleeping ??= (async () => {
      const { api } = await this.servicesWorkspace();
      const started = await this.owner.client.post(`${api}/sleeper/start`);
      if (started.status !== 202)
        throw new Error(`sleeper: ${started.status} ${JSON.stringify(started.body)}`);
      for (let i = 0; i < 200; i += 1) {
        const { body } = await this.owner.client.get<{ status: string }>(`${api}/sleeper`);
        if (body.status === 'running') return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('sleeper did not start');
    })();
    return this.sleeping;
  }

  async workspaceOf(user: User): Promise<string> {
    const list = await user.client.get<{ workspaces: { id: string; kind: string }[] }>(
      `/api/projects/${user.projectId}/workspaces`,
    );
    const id = list.body.workspaces.find((w) => w.kind === 'project')?.id;
    if (!id) throw new Error(`no project workspace: ${JSON.stringify(list.body)}`);
    return id;
  }
}
