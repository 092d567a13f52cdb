import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, redisAvailable } from '../testing/lock-stores.js';

const run = promisify(execFile);
const client = path.join(path.dirname(fileURLToPath(import.meta.url)), 'redis.ts');

describe.skipIf(!redisAvailable)('RedisClient', () => {
  it('keeps a process with nothing else to do alive until its answer, and lets it exit once idle', async () => {
    // A script whose only work is one command: the process must wait for the answer, then end.
    const script = `
      const { RedisClient } = await import(${JSON.stringify(client)});
      const redis = new RedisClient(new URL(${JSON.stringify(REDIS_URL)}));
      console.log(await redis.command(['PING']));
      console.log(await redis.command(['ECHO', 'again']));`;
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      timeout: 20_000,
    });
    expect(stdout.trim().split('\n')).toEqual(['PONG', 'again']);
  });
});
