import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess } from '@/server/testing/server-process.js';
import { findBwrap } from './sandbox-mode.js';

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'autocoder-sandbox-start-'));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('the sandbox mode at start-up', () => {
  it('refuses to start with AUTOCODER_SANDBOX=bwrap when bwrap is not installed', async () => {
    const start = startServerProcess({
      AUTOCODER_DATA_DIR: dataDir,
      AUTOCODER_SANDBOX: 'bwrap',
      PATH: '/nonexistent',
    });
    await expect(start).rejects.toThrow(/bwrap was not found on PATH/);
  }, 90_000);

  it.skipIf(!findBwrap(process.env.PATH ?? ''))(
    'runs repository code in bubblewrap by default',
    async () => {
      const server = await startServerProcess({ AUTOCODER_DATA_DIR: dataDir, AUTOCODER_SANDBOX: '' });
      try {
        expect(server.lines.find((line) => line.includes('AutoCoder is listening'))).toContain(
          '"sandbox":"bwrap"',
        );
      } finally {
        await server.stop();
      }
    },
    90_000,
  );
});
