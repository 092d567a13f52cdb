import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResultData, SetupResultData, StoredEvent } from '@/contracts/pipeline.js';
import type { ProjectSetupInfo } from '@/contracts/projects.js';
import {
  gitIn,
  newTask,
  type RunStatusBody,
  repoOf,
  startOk,
  statusOf,
  type TaskSetup,
  taskEvents,
} from '@/server/modules/pipeline/testing/run-kit.js';
import { findBwrap, findProgram } from '@/server/modules/sandbox/sandbox-mode.js';
import { commitFiles } from '@/server/modules/workspace/test-repo.js';
import { createTestApp, type TestApp } from '@/server/testing/test-app.js';

/**
 * The setup command as a new user meets it, against the real npm registry: a real JavaScript
 * project (a test runner and two small libraries, a lockfile npm made), `npm ci` as proposed, run
 * through the bubblewrap sandbox whose network admits only registry.npmjs.org, `npm test` as the
 * check. The first run installs (a cache miss), the second gets node_modules from the cache.
 *
 * Skipped, saying why, when bubblewrap or npm is missing or the registry does not answer: a
 * network that is down must not make the suite red. Nothing here depends on how fast it is.
 */

const REGISTRY = 'https://registry.npmjs.org/';
const PATH = process.env.PATH ?? '/usr/bin:/bin';

/** One short HTTPS request to the registry: true when it answers 200 within a few seconds. */
function registryAnswers(): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(`${REGISTRY}uvu`, { method: 'HEAD', timeout: 5_000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve(false));
    req.end();
  });
}

async function whyNot(): Promise<string | null> {
  if (!findBwrap(PATH)) return 'bubblewrap (bwrap) is not installed';
  if (!findProgram('npm', PATH)) return 'npm is not on PATH';
  if (!(await registryAnswers())) return `the npm registry (${REGISTRY}) did not answer`;
  return null;
}

const skipReason = await whyNot();
if (skipReason) console.warn(`setup.npm.test.ts skipped: ${skipReason}`);

/** Exact versions: the direct dependencies never move; uvu brings dequal, diff, kleur, mri, sade. */
const PACKAGE_JSON = `${JSON.stringify(
  {
    name: 'greeter',
    version: '1.0.0',
    private: true,
    type: 'module',
    scripts: { test: 'uvu test' },
    dependencies: { ms: '2.1.3', dequal: '2.0.3' },
    devDependencies: { uvu: '0.5.6' },
  },
  null,
  2,
)}\n`;

const SOURCE = `import ms from 'ms';

/** How long ago, in words. */
export function ago(millis) {
  return \`\${ms(millis, { long: true })} ago\`;
}
`;

const TEST = `import { dequal } from 'dequal';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ago } from '../src/ago.js';

test('says how long ago', () => {
  assert.is(ago(2 * 60 * 60 * 1000), '2 hours ago');
});

test('compares deeply', () => {
  assert.ok(dequal({ a: [1, 2] }, { a: [1, 2] }));
});

test.run();
`;

/**
 * The project's lockfile, made by npm on this machine against the registry as a developer would
 * (`npm install --package-lock-only`: metadata only, nothing installed, no script run). Made here
 * rather than committed so that it is always one the registry serves today.
 */
async function lockfileFor(packageJson: string): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'autocoder-npm-lock-'));
  try {
    await writeFile(path.join(dir, 'package.json'), packageJson);
    await promisify(execFile)(
      'npm',
      [
        'install',
        '--package-lock-only',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        `--registry=${REGISTRY}`,
      ],
      { cwd: dir, timeout: 120_000, env: { ...process.env, npm_config_update_notifier: 'false' } },
    );
    return await readFile(path.join(dir, 'package-lock.json'), 'utf8');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Bounds against hangs, never assertions on speed: npm ci through the sandbox on a busy 2-core machine. */
const RUN_LIMIT_MS = 300_000;
const TEST_LIMIT_MS = 900_000;

async function until(setup: TaskSetup, what: string): Promise<RunStatusBody> {
  const deadline = Date.now() + RUN_LIMIT_MS;
  for (;;) {
    const run = await statusOf(setup.client, setup.taskId);
    if (run.status !== 'running' && run.status !== 'paused') return run;
    if (run.status === 'paused') throw new Error(`${what} paused: ${JSON.stringify(run.errorDetails)}`);
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}: ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const ofType = <T>(events: StoredEvent[], type: string) =>
  events.flatMap((e) => (e.type === type ? [e.data as T] : []));

let t: TestApp;
beforeAll(async () => {
  if (skipReason) return;
  t = await createTestApp({ sandboxAllowedHosts: ['registry.npmjs.org'] });
});
afterAll(async () => {
  await t?.close();
});

describe.skipIf(skipReason !== null)('npm ci from the real registry as a project setup', () => {
  it(
    'proposes npm ci, installs through the sandbox (a miss, logged), passes npm test, never commits node_modules, and restores the next run from the cache',
    async () => {
      const lockfile = await lockfileFor(PACKAGE_JSON);
      expect(JSON.parse(lockfile).packages).toHaveProperty(['node_modules/uvu']);

      const first = await newTask(t, { title: 'Add greeting helper' });
      const repo = await repoOf(t, first.projectId);
      await commitFiles(
        repo.repoPath,
        {
          'package.json': PACKAGE_JSON,
          'package-lock.json': lockfile,
          'src/ago.js': SOURCE,
          'test/ago.test.js': TEST,
        },
        'A greeter with its tests',
      );

      // What a new user sees in the settings: the proposal, from the lockfile.
      const proposed = await first.client.get<ProjectSetupInfo>(`/api/projects/${first.projectId}/setup`);
      expect(proposed.status).toBe(200);
      expect(proposed.body).toMatchObject({
        setupCommand: null,
        proposal: { command: 'npm ci', because: 'package-lock.json' },
        cache: { entries: [] },
      });
      const command = proposed.body.proposal!.command;
      const set = await first.client.patch(`/api/projects/${first.projectId}`, {
        setupCommand: command,
        checkCommand: 'npm test',
      });
      expect(set.status).toBe(200);

      await startOk(first.client, first.taskId);
      const one = await until(first, 'the first run');
      const firstEvents = await taskEvents(t, first.taskId);
      const firstSetup = ofType<SetupResultData>(firstEvents, 'setup-result');
      expect(firstSetup, firstSetup[0]?.tail).toMatchObject([
        { passed: true, cache: 'miss', paths: ['node_modules'], exitCode: 0 },
      ]);
      const log = ofType<{ chunk: string }>(firstEvents, 'setup-log')
        .map((e) => e.chunk)
        .join('');
      expect(log).toMatch(/added \d+ packages/);
      const checks = ofType<CheckResultData>(firstEvents, 'check-result');
      expect(checks.length).toBeGreaterThan(0);
      expect(checks.at(-1), checks.at(-1)?.tail).toMatchObject({ passed: true, exitCode: 0 });
      expect(checks.at(-1)?.tail).toMatch(/Total:\s+2/);
      expect(one.status).toBe('passed');

      // Nothing the install made is in the branch: neither its tree nor any of its commits.
      const branch = one.branch ?? '';
      expect(branch).not.toBe('');
      const tracked = await gitIn(repo.repoPath, ['ls-tree', '-r', '--name-only', branch]);
      expect(tracked).toContain('package-lock.json');
      expect(tracked).not.toContain('node_modules');
      const touched = await gitIn(repo.repoPath, [
        'log',
        '--name-only',
        '--format=',
        `${repo.defaultBranch}..${branch}`,
      ]);
      expect(touched).not.toContain('node_modules');

      // The second run: the same lockfile and command, so node_modules comes from the cache.
      const second = await newTask(t, { title: 'Add farewell helper', user: first });
      await startOk(second.client, second.taskId);
      const two = await until(second, 'the second run');
      const secondEvents = await taskEvents(t, second.taskId);
      expect(ofType<SetupResultData>(secondEvents, 'setup-result')).toMatchObject([
        { passed: true, cache: 'hit', paths: ['node_modules'] },
      ]);
      const secondChecks = ofType<CheckResultData>(secondEvents, 'check-result');
      expect(secondChecks.at(-1), secondChecks.at(-1)?.tail).toMatchObject({ passed: true, exitCode: 0 });
      expect(two.status).toBe('passed');

      const info = await first.client.get<ProjectSetupInfo>(`/api/projects/${first.projectId}/setup`);
      expect(info.body).toMatchObject({ setupCommand: 'npm ci', proposal: null });
      expect(info.body.cache.entries).toMatchObject([{ command: 'npm ci', paths: ['node_modules'] }]);
    },
    TEST_LIMIT_MS,
  );
});
