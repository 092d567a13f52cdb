import { describe, expect, it } from 'vitest';
import { estimateCostUsd } from './pricing.js';

const million = { inputTokens: 1_000_000, outputTokens: 1_000_000 };

describe('estimateCostUsd', () => {
  it.each([
    ['claude-sonnet-4-20250514', 18],
    ['claude-sonnet-4-5-20250929', 18],
    ['claude-sonnet-4-5', 18],
    ['claude-opus-4-20250514', 90],
    ['claude-opus-4-1-20250805', 90],
    ['claude-opus-4-1', 90],
    ['claude-opus-4-5-20251101', 30],
    ['claude-3-5-haiku-20241022', 4.8],
    ['claude-haiku-4-5-20251001', 6],
    ['anthropic/claude-sonnet-4', 18],
  ])('prices %s from the list price per million tokens', (model, dollars) => {
    expect(estimateCostUsd(model, million)).toBeCloseTo(dollars, 6);
  });

  it('charges input and output at their own rates', () => {
    expect(
      estimateCostUsd('claude-sonnet-4-20250514', { inputTokens: 1000, outputTokens: 2000 }),
    ).toBeCloseTo(0.003 + 0.03, 9);
  });

  it('prices the part of the input the prompt cache wrote at 1.25× and read at 0.1×', () => {
    // Sonnet 4: $3 per million input. 1M input of which 600k read and 200k written: 200k·3 + 200k·3.75 + 600k·0.3.
    const usage = {
      inputTokens: 1_000_000,
      outputTokens: 0,
      cacheReadTokens: 600_000,
      cacheWriteTokens: 200_000,
    };
    expect(estimateCostUsd('claude-sonnet-4-20250514', usage)).toBeCloseTo(0.6 + 0.75 + 0.18, 9);
  });

  it('is 0 for unknown models and for anything the simulator answered', () => {
    expect(estimateCostUsd('llama3.1:8b', million)).toBe(0);
    expect(estimateCostUsd('claude-opus-4-7', million)).toBe(0);
    expect(estimateCostUsd('claude-sonnet-4-20250514', million, { simulated: true })).toBe(0);
  });
});
