import { appendFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceOutputEvent } from '@/contracts/services.js';
import { OUTPUT_CAP_BYTES, OutputLog, readOutputFile } from './output-log.js';

const line = (i: number): ServiceOutputEvent => ({
  type: 'stdout',
  data: `line ${i} ${'x'.repeat(1000)}\n`,
  timestamp: new Date(0).toISOString(),
});

describe('a service output log', () => {
  let dir: string;
  let file: string;
  const errors: unknown[] = [];
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'autocoder-output-'));
    file = path.join(dir, 'ws', 'svc.jsonl');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('keeps every event as a JSONL line while under 1 MB', async () => {
    const log = new OutputLog(file, (error) => errors.push(error));
    for (let i = 0; i < 10; i++) log.append(line(i));
    await log.flush();
    const stored = await readOutputFile(file);
    expect(stored).toEqual(log.events());
    expect(stored).toHaveLength(10);
    expect((await readFile(file, 'utf8')).split('\n').filter(Boolean)).toHaveLength(10);
  });

  it('past 1 MB keeps its last half, in memory and on disk alike', async () => {
    const log = new OutputLog(file, (error) => errors.push(error));
    const count = 1200; // ~1.2 MB of ~1 KB lines
    for (let i = 0; i < count; i++) {
      log.append(line(i));
      if (i % 100 === 0) await log.flush();
    }
    await log.flush();
    const size = (await stat(file)).size;
    expect(size).toBeLessThanOrEqual(OUTPUT_CAP_BYTES);
    const stored = await readOutputFile(file);
    expect(stored).toEqual(log.events());
    // The newest line is kept, the oldest are gone, and what is left starts at a whole line.
    const texts = stored.map((event) => (event.type === 'exit' ? '' : event.data));
    expect(texts.at(-1)).toMatch(/^line 1199 /);
    expect(texts[0]).not.toMatch(/^line 0 /);
    expect(size).toBeGreaterThan(OUTPUT_CAP_BYTES / 2 - 2000);
    expect(errors).toEqual([]);
  });

  it('is emptied by clear (a service starting again), file included', async () => {
    const log = new OutputLog(file, (error) => errors.push(error));
    log.append(line(1));
    await log.flush();
    log.clear();
    await log.flush();
    expect(await readFile(file, 'utf8')).toBe('');
    expect(log.events()).toEqual([]);
  });

  it('reads a file whose last line was cut by a crash, skipping that line', async () => {
    const log = new OutputLog(file, (error) => errors.push(error));
    log.append(line(1));
    await log.flush();
    await appendFile(file, '{"type":"stdout","da');
    expect(await readOutputFile(file)).toHaveLength(1);
    expect(await readOutputFile(path.join(dir, 'missing.jsonl'))).toEqual([]);
  });
});
