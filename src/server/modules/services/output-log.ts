import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ServiceOutputEvent } from '@/contracts/services.js';

/** A service's output file is capped at this size; past it, it keeps its last half (seed 002). */
export const OUTPUT_CAP_BYTES = 1024 * 1024;
/** Output is written to disk in batches, this often. */
const FLUSH_MS = 100;

/** `<dataDir>/services/output/<workspaceId>/<serviceId>.jsonl`: out of every sandbox's sight. */
export function outputFile(dataDir: string, workspaceId: string, serviceId: string): string {
  return path.join(dataDir, 'services', 'output', workspaceId, `${serviceId}.jsonl`);
}

/** The events of an output file; a line that does not parse (a torn write) is skipped. */
export async function readOutputFile(file: string): Promise<ServiceOutputEvent[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  const events: ServiceOutputEvent[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line) as ServiceOutputEvent);
    } catch {
      // a line cut by a crash mid-write: the rest of the file is still good
    }
  }
  return events;
}

/**
 * The output of a service while this process runs it: the file's lines kept in memory as well,
 * so a client replays exactly what the file holds (the same cap, the same half kept) without a
 * race between reading the file and the writes still queued. Writes are batched and ordered.
 */
export class OutputLog {
  private lines: string[] = [];
  private bytes = 0;
  private pending: string[] = [];
  /** The file must be rewritten whole (cleared, or truncated to its last half). */
  private rewrite = false;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    readonly file: string,
    private readonly onError: (error: unknown) => void,
    private readonly capBytes = OUTPUT_CAP_BYTES,
  ) {}

  /** Empties the log and its file (a service's output is cleared when it starts). */
  clear(): void {
    this.lines = [];
    this.bytes = 0;
    this.pending = [];
    this.rewrite = true;
    this.schedule();
  }

  append(event: ServiceOutputEvent): void {
    const line = `${JSON.stringify(event)}\n`;
    this.lines.push(line);
    this.bytes += Buffer.byteLength(line);
    if (this.bytes > this.capBytes) {
      let drop = 0;
      while (this.bytes > this.capBytes / 2 && drop < this.lines.length) {
        this.bytes -= Buffer.byteLength(this.lines[drop] as string);
        drop++;
      }
      this.lines.splice(0, drop);
      this.pending = [];
      this.rewrite = true;
    } else if (!this.rewrite) {
      this.pending.push(line);
    }
    this.schedule();
  }

  /** What the file holds (once flushed), as events. */
  events(): ServiceOutputEvent[] {
    return this.lines.map((line) => JSON.parse(line) as ServiceOutputEvent);
  }

  /** Writes what is queued; resolves once the file holds every event appended so far. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const rewrite = this.rewrite;
    const text = rewrite ? this.lines.join('') : this.pending.join('');
    this.rewrite = false;
    this.pending = [];
    if (!rewrite && !text) return this.chain;
    this.chain = this.chain
      .then(async () => {
        await mkdir(path.dirname(this.file), { recursive: true });
        if (rewrite) await writeFile(this.file, text);
        else await appendFile(this.file, text);
      })
      .catch(this.onError);
    return this.chain;
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }
}
