// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { diffFile, patchOf } from '@/web/testing/diff-fixtures';
import { renderAt } from '@/web/testing/render';
import { FileDiff } from './file-diff';

afterEach(cleanup);

const long = diffFile({
  path: 'long.txt',
  status: 'added',
  language: 'text',
  additions: 120,
  patch: patchOf(
    'long.txt',
    '@@ -0,0 +1,120 @@',
    Array.from({ length: 120 }, (_, i) => `+line ${i + 1}`),
  ),
});

const rendered = () => document.querySelectorAll('tr[data-anchor]').length;
const row = (line: number) => document.querySelector<HTMLElement>(`tr[data-anchor="${line}"]`);

describe('a long file’s diff', () => {
  it('renders its first rows, more on demand', () => {
    renderAt(
      <FileDiff file={long} mode="unified" comments={[]} actions={null} focus={null} rowsPerPage={50} />,
    );
    // The hunk's header is one of the rows.
    expect(rendered()).toBe(49);
    expect(screen.getByTestId('diff-show-more').parentElement?.textContent).toContain('71 more lines');
    fireEvent.click(screen.getByTestId('diff-show-more'));
    expect(rendered()).toBe(99);
    fireEvent.click(screen.getByTestId('diff-show-more'));
    expect(rendered()).toBe(120);
    expect(screen.queryByTestId('diff-show-more')).toBeNull();
  });

  it('shows enough rows to reach a line it is asked to show', async () => {
    renderAt(
      <FileDiff
        file={long}
        mode="split"
        comments={[]}
        actions={null}
        focus={{ line: 110, seq: 1 }}
        rowsPerPage={50}
      />,
    );
    await waitFor(() => expect(row(110)?.dataset.focused).toBe('true'));
    expect(rendered()).toBeGreaterThanOrEqual(110);
  });
});
