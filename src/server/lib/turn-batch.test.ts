import { describe, expect, it } from 'vitest';
import { TurnBatch } from './turn-batch.js';

describe('TurnBatch', () => {
  it('answers callers of one turn with one read, per key', async () => {
    const keys: string[] = [];
    const batch = new TurnBatch(async (key: string) => {
      keys.push(key);
      return `${key}@${keys.length}`;
    });
    const answers = await Promise.all([batch.get('a'), batch.get('a'), batch.get('b'), batch.get('a')]);
    expect(answers).toEqual(['a@1', 'a@1', 'b@2', 'a@1']);
    expect(batch.reads).toBe(2);
  });

  it('never hands a caller a value read before it called', async () => {
    let version = 0;
    let release: () => void = () => {};
    const batch = new TurnBatch(async () => {
      const seen = version;
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return seen;
    });
    const first = batch.get('p');
    await new Promise((resolve) => setImmediate(resolve)); // the first read is now in flight
    version = 1; // a write commits while it is
    const second = batch.get('p');
    release();
    expect(await first).toBe(0);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect(await second).toBe(1);
    expect(batch.reads).toBe(2);
  });

  it('passes a failed read to every caller of its turn, and reads again next turn', async () => {
    let fail = true;
    const batch = new TurnBatch(async () => {
      if (fail) throw new Error('down');
      return 'up';
    });
    const results = await Promise.allSettled([batch.get('k'), batch.get('k')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    await expect(batch.get('k')).resolves.toBe('up');
  });
});

describe('TurnBatch in flight', () => {
  it('has one read of a key in flight at a time: callers that come meanwhile share the next', async () => {
    const releases: (() => void)[] = [];
    let version = 0;
    const batch = new TurnBatch(async () => {
      const seen = version;
      await new Promise<void>((resolve) => releases.push(resolve));
      return seen;
    });
    const first = batch.get('p');
    await new Promise((resolve) => setImmediate(resolve)); // the first read is in flight
    version = 1;
    // Three turns of callers while it is: no read of their own yet.
    const later: Promise<number>[] = [];
    for (let turn = 0; turn < 3; turn++) {
      later.push(batch.get('p'));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(batch.reads).toBe(1);
    releases[0]?.();
    expect(await first).toBe(0);
    await new Promise((resolve) => setImmediate(resolve)); // the next read starts
    expect(batch.reads).toBe(2);
    releases[1]?.();
    // Each of them gets a value read after it called.
    expect(await Promise.all(later)).toEqual([1, 1, 1]);
    expect(batch.reads).toBe(2);
  });

  it('keeps keys apart: a read in flight for one key does not hold another', async () => {
    const releases = new Map<string, () => void>();
    const batch = new TurnBatch(
      (key: string) => new Promise<string>((resolve) => releases.set(key, () => resolve(key))),
    );
    const a = batch.get('a');
    await new Promise((resolve) => setImmediate(resolve));
    const b = batch.get('b');
    await new Promise((resolve) => setImmediate(resolve));
    expect(batch.reads).toBe(2);
    releases.get('b')?.();
    expect(await b).toBe('b');
    releases.get('a')?.();
    expect(await a).toBe('a');
  });

  it('reads again after a failed read for the callers that came while it was in flight', async () => {
    let calls = 0;
    let fail: (error: Error) => void = () => {};
    const batch = new TurnBatch(() => {
      calls += 1;
      if (calls === 1) return new Promise<string>((_, reject) => (fail = reject));
      return Promise.resolve('up');
    });
    const first = batch.get('k');
    await new Promise((resolve) => setImmediate(resolve));
    const second = batch.get('k');
    fail(new Error('down'));
    await expect(first).rejects.toThrow('down');
    await expect(second).resolves.toBe('up');
  });
});
