import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { openDatabase } from './db/client.js';
import { loadEnv } from './env.js';
import { builtPath } from './lib/built-path.js';
import { createLogger } from './lib/logger.js';
import { isLoopbackHost } from './lib/network-policy.js';
import { setUpSandbox } from './modules/sandbox/sandbox-setup.js';

/*
 * `node dist/server/main.js`: the settings, the sandbox, then the database. The rest of the server
 * (serve.ts, the whole API) is loaded while the database opens: PGlite starts in its own worker
 * thread, so the two overlap instead of adding up on a cold start.
 */
async function main() {
  const env = loadEnv();
  const logger = createLogger(env.logLevel);
  await mkdir(env.dataDir, { recursive: true });
  // Chosen before anything starts: AUTOCODER_SANDBOX=bwrap without bwrap installed stops the server here.
  const sandbox = await setUpSandbox(
    {
      requested: env.sandboxMode,
      host: env.host,
      path: env.path,
      dataDir: env.dataDir,
      user: env.sandboxUser,
      tmpBytes: env.sandboxTmpBytes,
      maxGrowthBytes: env.sandboxMaxGrowthBytes,
      allowedHosts: env.sandboxAllowedHosts,
      privateHosts: env.allowedHosts,
      limitsMode: env.sandboxLimitsMode,
      limits: env.sandboxLimits,
    },
    logger,
  );
  if (sandbox.mode === 'host' && !isLoopbackHost(env.host)) {
    logger.warn('AUTOCODER_SANDBOX=host on a server others can reach: repository code runs as this user');
  }
  const openingStarted = Date.now();
  const opening = openDatabase({
    url: env.databaseUrl,
    dataDir: path.join(env.dataDir, 'pglite'),
    templateDir: builtPath('pglite-template'),
    worker: true,
  });
  const loading = import('./serve.js');
  // Awaited below, after the database: a failure meanwhile must not surface as an unhandled rejection,
  // nor end the process before the database is open.
  loading.catch(() => undefined);
  const database = await opening;
  logger.info('database ready', { database: database.kind, ms: Date.now() - openingStarted });
  const { startServer } = await loading;
  await startServer({ env, logger, sandbox, database });
}

main().catch((error: unknown) => {
  process.stderr.write(
    `AutoCoder failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
