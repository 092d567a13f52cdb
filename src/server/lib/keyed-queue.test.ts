import { describe, expect, it } from 'vitest';
import { KeyedQueue } from './keyed-queue.js';

describe('KeyedQueue', () => {
  it('hands out each key’s items oldest first, keys apart, and takes one out from the middle', () => {
    const queue = new KeyedQueue<string, number>();
    for (const n of [1, 2, 3]) queue.push('a', n);
    queue.push('b', 9);
    queue.remove('a', 2);
    queue.remove('a', 7); // not there: nothing changes
    expect([queue.shift('a'), queue.shift('a'), queue.shift('a')]).toEqual([1, 3, undefined]);
    expect(queue.shift('b')).toBe(9);
    queue.push('c', 1);
    queue.clear();
    expect(queue.shift('c')).toBeUndefined();
  });
});
