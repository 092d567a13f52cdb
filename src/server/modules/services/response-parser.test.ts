import { describe, expect, it } from 'vitest';
import { AnswerParseError, ResponseParser } from './response-parser.js';

interface Parsed {
  status?: number;
  message?: string;
  headers?: string[];
  body: string;
  ended?: { reusable: boolean };
}

/** Parses `text` fed in pieces cut at `cuts` (byte offsets); `finish` ends the connection after. */
function parse(text: string, options: { cuts?: number[]; head?: boolean; finish?: boolean } = {}): Parsed {
  const parsed: Parsed = { body: '' };
  const parser = new ResponseParser(options.head ?? false, {
    head: (status, message, headers) => Object.assign(parsed, { status, message, headers }),
    data: (chunk) => {
      parsed.body += chunk.toString('latin1');
    },
    end: (reusable) => {
      parsed.ended = { reusable };
    },
  });
  const bytes = Buffer.from(text, 'latin1');
  let from = 0;
  for (const cut of [...(options.cuts ?? []), bytes.length]) {
    parser.execute(bytes.subarray(from, cut));
    from = cut;
  }
  if (options.finish) parser.finish();
  return parsed;
}

/** The same answer cut at every single byte offset, then at every pair of offsets 7 bytes apart. */
function everyCut(text: string): number[][] {
  const length = Buffer.byteLength(text, 'latin1');
  const cuts: number[][] = [];
  for (let at = 1; at < length; at += 1) cuts.push([at]);
  for (let at = 1; at + 7 < length; at += 1) cuts.push([at, at + 7]);
  return cuts;
}

const fixed =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{"hello":"world"}';
const chunked =
  'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-A: b\r\n\r\n' +
  '5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nTrailer-One: x\r\n\r\n';

describe('ResponseParser', () => {
  it('reads a Content-Length answer however the bytes arrive, and keeps the connection', () => {
    for (const cuts of [[], ...everyCut(fixed)]) {
      expect(parse(fixed, { cuts })).toEqual({
        status: 200,
        message: 'OK',
        headers: ['Content-Type', 'application/json', 'Content-Length', '17'],
        body: '{"hello":"world"}',
        ended: { reusable: true },
      });
    }
  });

  it('decodes a chunked answer (extensions, trailers) however the bytes arrive', () => {
    for (const cuts of [[], ...everyCut(chunked)]) {
      expect(parse(chunked, { cuts })).toMatchObject({
        status: 201,
        headers: ['Transfer-Encoding', 'chunked', 'X-A', 'b'],
        body: 'hello, world',
        ended: { reusable: true },
      });
    }
  });

  it('knows answers without a body: to HEAD, 204, 304, and Content-Length 0', () => {
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n';
    expect(parse(head, { head: true })).toMatchObject({ body: '', ended: { reusable: true } });
    for (const status of ['204 No Content', '304 Not Modified']) {
      expect(parse(`HTTP/1.1 ${status}\r\n\r\n`)).toMatchObject({ body: '', ended: { reusable: true } });
    }
    expect(parse('HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n')).toMatchObject({
      status: 302,
      ended: { reusable: true },
    });
  });

  it('passes a repeated Content-Length of the same value on once', () => {
    const twice = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\ncontent-length: 2\r\n\r\nok';
    expect(parse(twice)).toMatchObject({ headers: ['Content-Length', '2'], body: 'ok' });
  });

  it('skips interim answers (103 Early Hints) for the final one', () => {
    const text = `HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n${fixed}`;
    expect(parse(text)).toMatchObject({ status: 200, body: '{"hello":"world"}' });
  });

  it('reads an answer without framing up to the end of the connection, which is then not reused', () => {
    const text = 'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nall of it';
    const open = parse(text);
    expect(open.body).toBe('all of it');
    expect(open.ended).toBeUndefined();
    expect(parse(text, { finish: true })).toMatchObject({ body: 'all of it', ended: { reusable: false } });
  });

  it('does not reuse a connection the answer closes, nor an HTTP/1.0 one that does not ask to be kept', () => {
    const close = 'HTTP/1.1 200 OK\r\nConnection: Upgrade, Close\r\nContent-Length: 2\r\n\r\nok';
    expect(parse(close).ended).toEqual({ reusable: false });
    expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok').ended).toEqual({ reusable: false });
    const kept = 'HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok';
    expect(parse(kept).ended).toEqual({ reusable: true });
  });

  it('refuses what does not parse, a cut answer, and bytes after an answer', () => {
    const bad = [
      'HTTP/2 200 OK\r\n\r\n',
      'HTTP/1.1 200 OK\r\nFolded: a\r\n b\r\n\r\n',
      'HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n',
      'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok',
      'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n',
      'HTTP/1.1 101 Switching Protocols\r\n\r\n',
      `${fixed}HTTP/1.1 200 OK\r\n`,
    ];
    for (const text of bad) expect(() => parse(text), text).toThrow(AnswerParseError);
    expect(() => parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf', { finish: true })).toThrow(
      AnswerParseError,
    );
    expect(() => parse(`HTTP/1.1 200 OK\r\nX: ${'a'.repeat(70 * 1024)}`)).toThrow(AnswerParseError);
  });
});
