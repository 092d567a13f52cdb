/** Bytes of output a finished process reports (`tail`). */
export const TAIL_BYTES = 4096;

/**
 * The last `limit` bytes written to it, in a fixed buffer: a process may print gigabytes, the
 * server keeps only what a person needs to see why it failed.
 */
export class OutputTail {
  private readonly buffer: Buffer;
  private size = 0;
  private start = 0;

  constructor(readonly limit = TAIL_BYTES) {
    this.buffer = Buffer.alloc(limit);
  }

  push(chunk: Buffer): void {
    if (chunk.length >= this.limit) {
      chunk.copy(this.buffer, 0, chunk.length - this.limit);
      this.start = 0;
      this.size = this.limit;
      return;
    }
    // Ring buffer: write after the last byte, wrapping around, dropping the oldest.
    let end = (this.start + this.size) % this.limit;
    let offset = 0;
    while (offset < chunk.length) {
      const n = Math.min(chunk.length - offset, this.limit - end);
      chunk.copy(this.buffer, end, offset, offset + n);
      offset += n;
      end = (end + n) % this.limit;
    }
    const total = this.size + chunk.length;
    if (total > this.limit) this.start = (this.start + total - this.limit) % this.limit;
    this.size = Math.min(total, this.limit);
  }

  /** The kept bytes as text; a character cut at the front is dropped, not shown as a replacement mark. */
  text(): string {
    const first = this.buffer.subarray(this.start, Math.min(this.start + this.size, this.limit));
    const rest = this.buffer.subarray(0, Math.max(0, this.start + this.size - this.limit));
    let bytes = Buffer.concat([first, rest]);
    let skip = 0;
    // UTF-8 continuation bytes (10xxxxxx) at the front belong to a character that was cut.
    while (skip < Math.min(3, bytes.length) && ((bytes[skip] ?? 0) & 0xc0) === 0x80) skip++;
    if (skip) bytes = bytes.subarray(skip);
    return bytes.toString('utf8');
  }
}
