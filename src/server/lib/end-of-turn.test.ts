import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { atEndOfTurn } from './end-of-turn.js';

describe('atEndOfTurn', () => {
  it('runs work after the turn’s I/O callbacks, once each, in order', async () => {
    const seen: string[] = [];
    await new Promise<void>((resolve) => {
      // Inside an I/O callback, as the proxy is when it reads a request.
      void readFile(import.meta.filename).then(() => {
        atEndOfTurn(() => seen.push('first'));
        atEndOfTurn(() => seen.push('second'));
        seen.push('rest of the callback');
        process.nextTick(() => seen.push('next tick'));
        setImmediate(() => {
          seen.push('later immediate');
          resolve();
        });
      });
    });
    expect(seen).toEqual(['rest of the callback', 'next tick', 'first', 'second', 'later immediate']);
  });

  it('keeps going past work that throws, and reports the error', async () => {
    const seen: string[] = [];
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    process.prependListener('uncaughtException', onError);
    try {
      atEndOfTurn(() => {
        throw new Error('boom');
      });
      atEndOfTurn(() => seen.push('after'));
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('uncaughtException', onError);
    }
    expect(seen).toEqual(['after']);
    expect(errors).toHaveLength(1);
  });
});
