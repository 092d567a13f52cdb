import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './keyed-mutex.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('KeyedMutex', () => {
  it('runs holders of one key one at a time, in call order', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const holder = (name: string) =>
      mutex.run('user-1', async () => {
        log.push(`${name} in`);
        await tick();
        log.push(`${name} out`);
      });
    await Promise.all([holder('a'), holder('b'), holder('c')]);
    expect(log).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  });

  it('lets different keys run side by side', async () => {
    const mutex = new KeyedMutex();
    const log: string[] = [];
    const holder = (key: string) =>
      mutex.run(key, async () => {
        log.push(`${key} in`);
        await tick();
        log.push(`${key} out`);
      });
    await Promise.all([holder('x'), holder('y')]);
    expect(log).toEqual(['x in', 'y in', 'x out', 'y out']);
  });

  it('releases the key when a holder throws, and passes the error on', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(mutex.run('k', async () => 'next')).resolves.toBe('next');
  });
});
