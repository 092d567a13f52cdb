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

describe.skipIf(!redisAvailable)('RedisClient commands', () => {
  it('answers commands sent in one tick in order, each with its own reply', async () => {
    const { RedisClient } = await import('./redis.js');
    const redis = new RedisClient(new URL(REDIS_URL));
    try {
      const key = `autocoder:test:pipeline:${process.pid}:${Date.now()}`;
      const replies = await Promise.all([
        redis.command(['DEL', key]),
        redis.command(['INCR', key]),
        redis.command(['INCR', key]),
        redis.command(['GET', key]),
        redis.command(['DEL', key]),
      ]);
      expect(replies).toEqual([0, 1, 2, '2', 1]);
    } finally {
      redis.close();
    }
  });

  it('runs a script by its SHA1, and sends it whole the first time, when Redis does not know it yet', async () => {
    const { RedisClient, redisScript } = await import('./redis.js');
    const redis = new RedisClient(new URL(REDIS_URL));
    // A script of its own (the pid and time in a comment), so that flushing it touches no other test.
    const script = redisScript(`-- ${process.pid} ${Date.now()}\nreturn {KEYS[1], ARGV[1]}`);
    try {
      expect(await redis.command(['SCRIPT', 'EXISTS', script.sha])).toEqual([0]);
      expect(await redis.eval(script, ['k'], ['first'])).toEqual(['k', 'first']);
      expect(await redis.command(['SCRIPT', 'EXISTS', script.sha])).toEqual([1]);
      expect(await redis.eval(script, ['k'], ['second'])).toEqual(['k', 'second']);
      await expect(redis.command(['EVALSHA', '0'.repeat(40), 0])).rejects.toThrow(/NOSCRIPT/);
    } finally {
      redis.close();
    }
  });
});
