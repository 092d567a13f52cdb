import { describe, expect, it } from 'vitest';
import { assertWithinBudget, BudgetExceededError, estimateInputTokens } from './budget.js';

describe('estimateInputTokens', () => {
  it('counts a prompt high rather than short: a third of its UTF-8 bytes, plus the framing', () => {
    const english = 'Add a function that greets a person by name, and export it from the index. '.repeat(40);
    const code = "export function greet(name: string): string { return 'Hello, ' + name; }\n".repeat(40);
    for (const text of [english, code]) {
      // Claude's tokenizer averages 3.5–4 characters a token on such text.
      expect(estimateInputTokens('', text)).toBeGreaterThanOrEqual(Math.ceil(text.length / 3.5));
    }
    // Outside ASCII a character takes more bytes (and often a token of its own).
    expect(estimateInputTokens('', '日本語のテキスト'.repeat(10))).toBeGreaterThanOrEqual(80);
    expect(estimateInputTokens('abc', 'def')).toBe(2 + 16);
  });
});

describe('assertWithinBudget', () => {
  const call = { inputTokens: 300, maxOutputTokens: 700 };

  it('lets a call through whose worst case meets the budget exactly, and refuses one token more', () => {
    expect(() => assertWithinBudget('coder', 4_000, 5_000, call)).not.toThrow();
    expect(() => assertWithinBudget('coder', 4_001, 5_000, call)).toThrow(BudgetExceededError);
  });

  it('never refuses without a budget', () => {
    expect(() => assertWithinBudget('planner', 10 ** 9, null, call)).not.toThrow();
  });

  it('names what was spent, the budget, the call and the budget that would let it through', () => {
    let refused: unknown;
    try {
      assertWithinBudget('reviewer', 12_345, 12_500, call);
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(BudgetExceededError);
    expect((refused as Error).message).toBe(
      "The task has spent 12,345 of its 12,500-token budget, and the reviewer's next call could use up to 1,000 " +
        "more (about 300 in, at most 700 out), so it was not made. Raise the project's task token budget to at " +
        'least 13,345 and press Retry.',
    );
  });
});
