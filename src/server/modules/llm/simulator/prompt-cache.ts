import { createHash, type Hash } from 'node:crypto';

/**
 * Prompt caching as the simulator plays it. A request is read as a sequence of segments in the
 * order the provider caches them (Anthropic: tools, system, then each content block; OpenAI:
 * the tools, then each message); a prefix is named by the hash of its segments. Per run key the
 * simulator remembers the prefixes it has "cached", a bounded table.
 */

/** One piece of a request's prompt, as it takes part in a prefix. */
export interface PromptSegment {
  /** Canonical text: what the prefix's hash and its token count are made of. */
  text: string;
  /** Anthropic: the block carries `cache_control` (a breakpoint). */
  marked?: boolean;
}

/** A prefix of the request: up to the end of one segment. */
interface Boundary {
  hash: string;
  chars: number;
  marked: boolean;
}

export interface CacheUsage {
  /** Characters the cache served (a prefix seen before). */
  readChars: number;
  /** Characters written to the cache (Anthropic: up to the last breakpoint, beyond what was read). */
  writeChars: number;
  /** Characters of the whole prompt. */
  totalChars: number;
}

function boundaries(segments: readonly PromptSegment[]): Boundary[] {
  const hash: Hash = createHash('sha256');
  const out: Boundary[] = [];
  let chars = 0;
  for (const segment of segments) {
    // The length first, so segments cannot run into each other ("ab"+"c" ≠ "a"+"bc").
    hash.update(`${segment.text.length}:`);
    hash.update(segment.text);
    chars += segment.text.length;
    out.push({ hash: hash.copy().digest('base64url'), chars, marked: segment.marked === true });
  }
  return out;
}

export class PromptCache {
  private readonly runs = new Map<string, Set<string>>();

  constructor(
    private readonly maxRuns = 1000,
    private readonly maxPrefixesPerRun = 256,
  ) {}

  /**
   * Anthropic: nothing is cached without a `cache_control` breakpoint. The longest prefix seen
   * before, ending at a block boundary up to the last breakpoint, is read; the rest up to the last
   * breakpoint is written; every breakpoint's prefix is remembered.
   */
  anthropic(runKey: string, segments: readonly PromptSegment[]): CacheUsage {
    const all = boundaries(segments);
    const totalChars = all.at(-1)?.chars ?? 0;
    const last = all.findLastIndex((b) => b.marked);
    if (last < 0) return { readChars: 0, writeChars: 0, totalChars };
    const readChars = this.longestKnown(runKey, all.slice(0, last + 1));
    this.remember(
      runKey,
      all.filter((b, i) => b.marked && i <= last).map((b) => b.hash),
    );
    return { readChars, writeChars: all[last]!.chars - readChars, totalChars };
  }

  /**
   * OpenAI: automatic prefix caching. The longest prefix seen before, ending at a message
   * boundary, is read (`cached_tokens`); the whole prompt is remembered for the next request.
   */
  openAi(runKey: string, segments: readonly PromptSegment[]): CacheUsage {
    const all = boundaries(segments);
    const totalChars = all.at(-1)?.chars ?? 0;
    const readChars = this.longestKnown(runKey, all);
    const whole = all.at(-1);
    if (whole) this.remember(runKey, [whole.hash]);
    return { readChars, writeChars: 0, totalChars };
  }

  private longestKnown(runKey: string, candidates: readonly Boundary[]): number {
    const known = this.runs.get(runKey);
    if (!known) return 0;
    for (let i = candidates.length - 1; i >= 0; i--) {
      if (known.has(candidates[i]!.hash)) return candidates[i]!.chars;
    }
    return 0;
  }

  private remember(runKey: string, hashes: readonly string[]): void {
    let known = this.runs.get(runKey);
    if (known) this.runs.delete(runKey);
    known ??= new Set();
    // Re-inserted: the most recently used run is the last one forgotten.
    this.runs.set(runKey, known);
    for (const hash of hashes) {
      known.delete(hash);
      known.add(hash);
    }
    while (known.size > this.maxPrefixesPerRun) {
      const oldest = known.values().next().value;
      if (oldest === undefined) break;
      known.delete(oldest);
    }
    while (this.runs.size > this.maxRuns) {
      const oldest = this.runs.keys().next().value;
      if (oldest === undefined) break;
      this.runs.delete(oldest);
    }
  }
}
