import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp, TestClient } from '@/server/testing/test-app.js';

const run = promisify(execFile);

/** The CLI as npm installed it (a devDependency); run by node, never through npx (nothing is downloaded). */
const REDOCLY = path.resolve('node_modules/@redocly/cli/bin/cli.js');
const installed = existsSync(REDOCLY);
if (!installed) console.warn(`openapi-lint.test.ts: skipped, ${REDOCLY} is missing (npm install)`);

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer: string }[];
}

describe.skipIf(!installed)('redocly lint of GET /api/openapi.json (recommended rules)', () => {
  let t: TestApp;
  let dir: string;
  beforeAll(async () => {
    t = await createTestApp({ app: { metricsToken: 'metrics-token-for-tests' } });
    dir = await mkdtemp(path.join(tmpdir(), 'autocoder-openapi-lint-'));
  });
  afterAll(async () => {
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finds no error', async () => {
    const res = await new TestClient(t.app).get('/api/openapi.json');
    expect(res.status).toBe(200);
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(res.body, null, 2));
    // Offline: no telemetry, no update check; without a redocly.yaml the rules are the built-in
    // recommended set, so nothing is fetched either. The exit code is 1 when there are errors.
    const { stdout } = await run(process.execPath, [REDOCLY, 'lint', file, '--format=json'], {
      cwd: dir,
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    const report = JSON.parse(stdout) as { totals: { errors: number }; problems: Problem[] };
    const shown = (problems: Problem[]) =>
      problems.map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    const warnings = report.problems.filter((p) => p.severity === 'warn');
    if (warnings.length > 0) console.info(`redocly warnings:\n${shown(warnings).join('\n')}`);
    expect(shown(report.problems.filter((p) => p.severity === 'error'))).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 120_000);
});
