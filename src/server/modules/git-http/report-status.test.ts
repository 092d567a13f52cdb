import { describe, expect, it } from 'vitest';
import { ReportRelabeller } from './report-status.js';

const pkt = (payload: Buffer | string) => {
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  return Buffer.concat([Buffer.from((bytes.length + 4).toString(16).padStart(4, '0')), bytes]);
};
const band = (n: number, data: Buffer | string) =>
  pkt(Buffer.concat([Buffer.from([n]), Buffer.isBuffer(data) ? data : Buffer.from(data)]));
const FLUSH = Buffer.from('0000');

/** git's answer to a push refused by the hook, as receive-pack sends it with side-band-64k. */
function declinedAnswer(hookSays: string) {
  const report = Buffer.concat([
    pkt('unpack ok\n'),
    pkt('ng refs/heads/main pre-receive hook declined\n'),
    pkt('ng refs/heads/feature pre-receive hook declined\n'),
    FLUSH,
  ]);
  return Buffer.concat([band(2, hookSays), band(1, report), FLUSH]);
}

/** Reads the report back out of an answer: the inner pkt-lines of side-band 1. */
function reportOf(answer: Buffer): string[] {
  const lines: string[] = [];
  let data = Buffer.alloc(0);
  for (let at = 0; at < answer.length; ) {
    const length = Number.parseInt(answer.toString('latin1', at, at + 4), 16);
    if (length === 0) {
      at += 4;
      continue;
    }
    if (answer[at + 4] === 1) data = Buffer.concat([data, answer.subarray(at + 5, at + length)]);
    at += length;
  }
  for (let at = 0; at < data.length; ) {
    const length = Number.parseInt(data.toString('latin1', at, at + 4), 16);
    if (length === 0) at += 4;
    else {
      lines.push(data.toString('utf8', at + 4, at + length));
      at += length;
    }
  }
  return lines;
}

function relabel(chunks: Buffer[]): Buffer {
  const relabeller = new ReportRelabeller();
  return Buffer.concat(chunks.map((chunk) => relabeller.push(chunk)));
}

describe('ReportRelabeller', () => {
  const hook = 'error: refs/heads/main is protected: it cannot be deleted\n';

  it('names the refs the hook called protected, and only those', () => {
    expect(reportOf(relabel([declinedAnswer(hook)]))).toEqual([
      'unpack ok\n',
      'ng refs/heads/main protected branch\n',
      'ng refs/heads/feature pre-receive hook declined\n',
    ]);
  });

  it('gives the same answer however git’s output is cut into chunks', () => {
    const answer = declinedAnswer(hook);
    const whole = relabel([answer]);
    for (let cut = 1; cut < answer.length; cut++) {
      expect(relabel([answer.subarray(0, cut), answer.subarray(cut)]), `cut at ${cut}`).toEqual(whole);
    }
    expect(relabel([...answer].map((byte) => Buffer.from([byte])))).toEqual(whole);
  });

  it('reads a hook line cut across side-band packets', () => {
    const answer = Buffer.concat([
      band(2, 'error: refs/heads/main is pro'),
      band(2, 'tected: only a fast-forward is accepted\n'),
      band(
        1,
        Buffer.concat([pkt('unpack ok\n'), pkt('ng refs/heads/main pre-receive hook declined\n'), FLUSH]),
      ),
      FLUSH,
    ]);
    expect(reportOf(relabel([answer]))).toContain('ng refs/heads/main protected branch\n');
  });

  it('changes nothing when the hook named no protected ref (a size refusal)', () => {
    const answer = declinedAnswer('error: object 1234 is 2000000 bytes, over the limit\n');
    expect(relabel([answer])).toEqual(answer);
  });

  it('passes on what does not parse as pkt-lines, byte for byte', () => {
    const answer = Buffer.concat([band(2, hook), Buffer.from('zzzz not a pkt-line'), declinedAnswer(hook)]);
    expect(relabel([answer])).toEqual(answer);
  });
});
