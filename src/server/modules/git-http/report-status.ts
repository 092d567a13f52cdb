/**
 * Names a protected branch in git's answer to a push: `! [remote rejected] main (protected branch)`
 * instead of git's `(pre-receive hook declined)`.
 *
 * A pre-receive hook refuses a push as a whole, and git reports every ref of it as `ng <ref>
 * pre-receive hook declined`. Our hook (hooks/pre-receive) writes `error: <ref> is protected: …`
 * to its stderr for each protected ref it refused; git sends that on side-band 2 before its report,
 * which travels on side-band 1 as pkt-lines of its own (report-status). This reads both and
 * rewrites the report's `ng` line of each ref the hook named; everything else passes unchanged.
 * Anything that does not parse as pkt-lines is passed on as it is from there on.
 */

/** The hook's line for a refused protected ref (keep in step with hooks/pre-receive). */
const PROTECTED_LINE = /^error: (refs\/[^ ]+) is protected: /;
const DECLINED = /^ng (refs\/[^ ]+) pre-receive hook declined\n?$/;
/** A side-band line longer than this is not one of the hook's: it is not looked at. */
const MAX_LINE = 4096;
const MAX_PKT = 65520;

function pkt(payload: Buffer): Buffer {
  const header = Buffer.from((payload.length + 4).toString(16).padStart(4, '0'), 'latin1');
  return Buffer.concat([header, payload]);
}

/** `data` on side-band `band`, in as many pkt-lines as it takes. */
function sideBand(band: number, data: Buffer): Buffer[] {
  const packets: Buffer[] = [];
  for (let at = 0; at < data.length; at += MAX_PKT - 5) {
    packets.push(pkt(Buffer.concat([Buffer.from([band]), data.subarray(at, at + MAX_PKT - 5)])));
  }
  return packets;
}

/** Splits a stream into pkt-lines: each complete one (payload, or null for 0000/0001/0002) as it comes. */
class PktReader {
  private buffered: Buffer = Buffer.alloc(0);
  broken = false;

  /** The complete pkt-lines in what has come so far, with the raw bytes of each. */
  *read(chunk: Buffer): Generator<{ raw: Buffer; payload: Buffer | null }> {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (!this.broken && this.buffered.length >= 4) {
      const header = this.buffered.toString('latin1', 0, 4);
      const length = /^[0-9a-f]{4}$/.test(header) ? Number.parseInt(header, 16) : -1;
      if (length < 0 || length === 3 || length > MAX_PKT) {
        this.broken = true;
        return;
      }
      if (length < 4) {
        yield { raw: this.buffered.subarray(0, 4), payload: null };
        this.buffered = this.buffered.subarray(4);
        continue;
      }
      if (this.buffered.length < length) return;
      yield { raw: this.buffered.subarray(0, length), payload: this.buffered.subarray(4, length) };
      this.buffered = this.buffered.subarray(length);
    }
  }

  /** What has not been read as a pkt-line (all of the rest once broken). */
  rest(): Buffer {
    const rest = this.buffered;
    this.buffered = Buffer.alloc(0);
    return rest;
  }
}

export class ReportRelabeller {
  private readonly outer = new PktReader();
  private readonly inner = new PktReader();
  private readonly refused = new Set<string>();
  private line = '';

  /** The bytes to send for this chunk of git's answer (after its CGI headers). */
  push(chunk: Buffer): Buffer {
    if (this.outer.broken) return chunk;
    const out: Buffer[] = [];
    for (const { raw, payload } of this.outer.read(chunk)) {
      const band = payload?.[0];
      if (!payload || payload.length === 0) out.push(raw);
      else if (band === 1) out.push(...sideBand(1, this.report(payload.subarray(1))));
      else if (band === 2) {
        this.readMessages(payload.subarray(1).toString('utf8'));
        out.push(raw);
      } else if (band === 3) out.push(raw);
      else out.push(pkt(this.relabel(payload))); // no side-band: the report is the answer
    }
    if (this.outer.broken) out.push(this.outer.rest());
    return Buffer.concat(out);
  }

  /** Side-band 1 data: the report's complete pkt-lines, rewritten (as it is once they do not parse). */
  private report(data: Buffer): Buffer {
    if (this.inner.broken) return data;
    const out: Buffer[] = [];
    for (const { raw, payload } of this.inner.read(data)) {
      out.push(payload ? pkt(this.relabel(payload)) : raw);
    }
    if (this.inner.broken) out.push(this.inner.rest());
    return Buffer.concat(out);
  }

  private relabel(payload: Buffer): Buffer {
    const declined = DECLINED.exec(payload.toString('utf8'));
    if (!declined?.[1] || !this.refused.has(declined[1])) return payload;
    return Buffer.from(`ng ${declined[1]} protected branch\n`, 'utf8');
  }

  private readMessages(text: string) {
    const lines = (this.line + text).split(/[\n\r]/);
    this.line = (lines.pop() ?? '').slice(0, MAX_LINE);
    for (const line of lines) {
      const named = PROTECTED_LINE.exec(line);
      if (named?.[1]) this.refused.add(named[1]);
    }
  }
}

/** git's answer to a push with the protected refs it refused named as such (see above). */
export async function* relabelProtectedRefusals(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const relabeller = new ReportRelabeller();
  for await (const chunk of chunks) {
    const out = relabeller.push(chunk);
    if (out.length > 0) yield out;
  }
}
