import type { TokenUsage } from '@/contracts/pipeline.js';

interface Price {
  /** Matches the model id (dated ids, aliases and "anthropic/…" router names alike). */
  match: RegExp;
  /** US dollars per million input tokens. */
  input: number;
  /** US dollars per million output tokens. */
  output: number;
}

/**
 * Anthropic's list prices, most specific first. Opus 4.5 is priced apart from Opus 4 / 4.1, so the Opus 4
 * pattern must not match "opus-4-5". Estimates, not invoices.
 */
const PRICES: readonly Price[] = [
  { match: /opus-4-5|opus-4\.5/, input: 5, output: 25 },
  { match: /opus-4(?:[-.][01])?(?:-\d{8})?(?![-.]?\d)/, input: 15, output: 75 },
  { match: /sonnet-4|3-7-sonnet|sonnet-3[-.]7/, input: 3, output: 15 },
  { match: /haiku-4-5|haiku-4\.5/, input: 1, output: 5 },
  { match: /3-5-haiku|haiku-3[-.]5/, input: 0.8, output: 4 },
];

/** Anthropic's prompt cache: a 5-minute cache write costs 1.25× the input price, a read 0.1×. */
export const CACHE_WRITE_FACTOR = 1.25;
export const CACHE_READ_FACTOR = 0.1;

/**
 * Estimated cost in US dollars of one call. `inputTokens` counts all input; the part read from or
 * written to the prompt cache is priced as such. Unknown models, and anything the offline
 * simulator answered (`simulated`), cost 0.
 */
export function estimateCostUsd(
  model: string,
  usage: TokenUsage,
  opts: { simulated?: boolean } = {},
): number {
  if (opts.simulated) return 0;
  const id = model.toLowerCase();
  const price = PRICES.find((p) => p.match.test(id));
  if (!price) return 0;
  const read = usage.cacheReadTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - read - written);
  const input = uncached + written * CACHE_WRITE_FACTOR + read * CACHE_READ_FACTOR;
  return (input * price.input + usage.outputTokens * price.output) / 1_000_000;
}
