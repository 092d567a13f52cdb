import { describe, expect, it } from 'vitest';
import { REDACTED, redactSecrets } from './redact.js';

describe('redactSecrets', () => {
  it('removes the exact keys it is given, wherever they appear', () => {
    const key = 'my-local-server-key-123';
    expect(redactSecrets(`401 invalid key ${key} (was ${key})`, [key])).toBe(
      `401 invalid key ${REDACTED} (was ${REDACTED})`,
    );
  });

  it('removes anything shaped like an Anthropic or OpenAI key without being told the value', () => {
    const text = 'keys sk-ant-api03-AbC_dEf-123456789 and sk-proj-abcdefghijklmnop and sk-1234567890abcdef';
    const out = redactSecrets(text);
    expect(out).not.toMatch(/sk-ant-api03|sk-proj-abc|sk-1234567890/);
    expect(out).toBe(`keys ${REDACTED} and ${REDACTED} and ${REDACTED}`);
  });

  it('removes bearer tokens and key headers, keeping their names', () => {
    expect(redactSecrets('Authorization: Bearer abc.def-ghi_123')).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactSecrets('sent x-api-key: topsecretvalue')).toBe(`sent x-api-key: ${REDACTED}`);
    expect(redactSecrets('{"api_key":"hunter2hunter2"}')).toBe(`{"api_key":"${REDACTED}"}`);
    expect(redactSecrets('x-anthropic-key=abcd1234efgh')).toBe(`x-anthropic-key=${REDACTED}`);
  });

  it('leaves ordinary text alone, including words that contain "sk-"', () => {
    const text = 'task-1234567890 failed: 429 rate_limit_error, retry after 1s (disk-usage ok)';
    expect(redactSecrets(text)).toBe(text);
    expect(redactSecrets('short key abc', ['abc'])).toBe('short key abc');
  });

  it('ignores missing values in the list of secrets', () => {
    expect(redactSecrets('nothing here', [undefined, null, ''])).toBe('nothing here');
  });
});
