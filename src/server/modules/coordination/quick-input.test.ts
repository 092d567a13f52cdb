import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkStatusSchema, postStatusSchema } from '@/contracts/coordination.js';
import { quickCheckStatusInput, quickPostStatusInput } from './quick-input.js';

/** Strings near the schemas' edges: blanks, control characters, `..`, backslashes, hex, case. */
const piece = fc.constantFrom(
  '',
  ' ',
  '\t',
  '\u0001',
  '\u007f',
  '.',
  '..',
  '/',
  '\\',
  '//',
  '-',
  '@{',
  '.lock',
  '~',
  'main',
  'feature/x',
  'src',
  'a.ts',
  'ABCDEF0',
  'abcdef0123',
  '0123456789abcdef0123456789abcdef01234567',
  'é',
  'Hello there.',
);
const text = fc.oneof(
  fc.array(piece, { maxLength: 5 }).map((parts) => parts.join('')),
  fc.string({ maxLength: 12 }),
);
const anyValue = fc.oneof(
  text,
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.array(text, { maxLength: 3 }),
);
const body = fc.record(
  {
    repo_url: fc.oneof(text, anyValue, { arbitrary: fc.constant(' http://localhost/git/p.git'), weight: 6 }),
    branch: fc.oneof(text, anyValue, { arbitrary: fc.constant('main'), weight: 6 }),
    agent_head: fc.oneof(text, anyValue, { arbitrary: fc.constant('ABCDEF0123'), weight: 3 }),
    file_paths: fc.oneof(
      fc.array(text, { maxLength: 6 }),
      anyValue,
      fc.constant(['src/a.ts', './src//a.ts']),
    ),
    status: fc.oneof(
      { arbitrary: fc.constantFrom('READING', 'WRITING', 'OPEN', 'open', ''), weight: 6 },
      anyValue,
    ),
    message: fc.oneof({ arbitrary: text, weight: 4 }, anyValue),
    new_repo_head: fc.oneof(text, anyValue, { arbitrary: fc.constant(' abcdef0 '), weight: 4 }),
    extra: anyValue,
  },
  { requiredKeys: [] },
);

/** Through JSON, as a request body reaches them. */
const asSent = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('quick input checks', () => {
  it('answer what the schemas answer whenever they accept (check_status)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (sent) => {
        const value = asSent(sent);
        const quick = quickCheckStatusInput(value);
        if (quick === null) return;
        accepted += 1;
        const schema = checkStatusSchema.safeParse(value);
        expect(schema.success).toBe(true);
        expect(quick).toStrictEqual(schema.data);
      }),
      { numRuns: 3000, seed: 9 },
    );
    // Not vacuous: many bodies are taken without the schema.
    expect(accepted).toBeGreaterThan(20);
  });

  it('answer what the schemas answer whenever they accept (post_status)', () => {
    let accepted = 0;
    fc.assert(
      fc.property(body, (sent) => {
        const value = asSent(sent);
        const quick = quickPostStatusInput(value);
        if (quick === null) return;
        accepted += 1;
        const schema = postStatusSchema.safeParse(value);
        expect(schema.success).toBe(true);
        expect(quick).toStrictEqual(schema.data);
      }),
      { numRuns: 3000, seed: 9 },
    );
    // Not vacuous: many bodies are taken without the schema.
    expect(accepted).toBeGreaterThan(20);
  });

  it('accept what agents send, normalized as the schemas do', () => {
    const sent = {
      repo_url: ' http://localhost/git/p.git ',
      branch: 'main',
      agent_head: 'ABCDEF0123',
      file_paths: ['./src//a.ts', 'src\\a.ts', 'src/b.ts'],
      status: 'OPEN',
      message: ' Done\u0001. ',
      new_repo_head: 'abcdef0123',
      unknown: 1,
    };
    expect(quickCheckStatusInput(sent)).toStrictEqual(checkStatusSchema.parse(sent));
    expect(quickPostStatusInput(sent)).toStrictEqual(postStatusSchema.parse(sent));
    expect(quickPostStatusInput(sent)).toMatchObject({
      file_paths: ['src/a.ts', 'src/b.ts'],
      message: 'Done.',
    });
  });
});
