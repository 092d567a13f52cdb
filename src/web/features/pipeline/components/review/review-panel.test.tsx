// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RunDiff } from '@/contracts/diff';
import type { TaskStatus } from '@/contracts/tasks';
import { commentsServer, diffFile, patchOf, runDiffOf } from '@/web/testing/diff-fixtures';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { newRunState, type PipelineRunState } from '../../stores/run-state';
import { ReviewPanel } from './review-panel';

const RUN = '00000000-0000-4000-8000-000000000001';
const DIFF = `GET /api/pipeline/runs/${RUN}/diff`;

const greet = diffFile({
  path: 'src/greet.ts',
  additions: 2,
  deletions: 1,
  patch: patchOf('src/greet.ts', '@@ -3,4 +3,5 @@ export function greet', [
    ' const a = 1;',
    '-const b = 2;',
    '+const b = 3;',
    '+/* a comment */ const c = `template`;',
    ' const d = 5;',
    ' const e = 6;',
  ]),
  findings: [
    { severity: 'info', line: 0, message: 'The module reads well.' },
    { severity: 'error', line: 4, message: 'b must not change: callers rely on 2.' },
    { severity: 'warning', line: 40, message: 'Line 40 is not in the diff.' },
    { severity: 'warning', line: 5, message: '<img src=x onerror="window.hacked=1"> is text' },
  ],
});
const strings = diffFile({
  path: 'src/util/strings.ts',
  status: 'added',
  additions: 2,
  patch: patchOf('src/util/strings.ts', '@@ -0,0 +1,2 @@', [
    '+export const upper = (s: string) =>',
    '+  s.toUpperCase();',
  ]),
});
const logo = diffFile({ path: 'assets/logo.png', status: 'added', binary: true, language: 'text' });
const big = diffFile({
  path: 'data/big.json',
  language: 'json',
  additions: 2500,
  deletions: 10,
  truncated: true,
});
const old = diffFile({
  path: 'src/old.ts',
  status: 'deleted',
  deletions: 1,
  patch: patchOf('src/old.ts', '@@ -1 +0,0 @@', ['-export const old = 1;']),
});

let diff: RunDiff;
let requests: StubRequest[];
let store: ReturnType<typeof commentsServer>;

beforeEach(() => {
  diff = runDiffOf([greet, strings, logo, big, old], {
    generalFindings: [{ severity: 'warning', line: 0, message: 'No tests were added.', file: null }],
  });
  store = commentsServer(RUN);
  ({ requests } = stubFetch({
    [DIFF]: () => diff,
    ...store.routes,
    ...store.deleteRoute('comment-1'),
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

function run(overrides: Partial<PipelineRunState> = {}): PipelineRunState {
  return {
    ...newRunState(RUN, 1_000, 'simulator'),
    status: 'passed',
    phase: 'completed',
    iteration: 1,
    branch: 'autocoder/greet-00000000',
    baseCommit: 'b'.repeat(40),
    headCommit: 'c'.repeat(40),
    reviewScore: 88,
    reviewFindings: { passed: true, score: 88, findings: [] },
    usage: { inputTokens: 12_345, outputTokens: 678, costUsd: 0 },
    ...overrides,
  };
}

async function open(taskStatus: TaskStatus = 'review', overrides: Partial<PipelineRunState> = {}) {
  const view = renderAt(
    <ReviewPanel run={run(overrides)} taskStatus={taskStatus} fallback={<p>fallback</p>} />,
  );
  await screen.findByTestId('review-panel');
  return view;
}

const treeFile = (path: string) =>
  screen.getAllByTestId('diff-tree-file').find((node) => node.dataset.path === path) as HTMLElement;
const row = (line: number) =>
  document.querySelector<HTMLElement>(`[data-testid="file-diff"] tr[data-anchor="${line}"]`);
/** The notes shown under a line: the row after the line's row. */
const notesUnder = (line: number) => {
  const next = row(line)?.nextElementSibling as HTMLElement | null;
  return next?.querySelector<HTMLElement>('[data-testid="line-notes"]') ?? null;
};

describe('the review panel', () => {
  it('sums up the run and lists the files by directory with status, line counts and findings', async () => {
    await open();
    expect(screen.getByTestId('review-files-changed').textContent).toContain('5');
    expect(screen.getByTestId('review-lines').textContent).toContain('+2,504');
    expect(screen.getByTestId('review-lines').textContent).toContain('−12');
    expect(screen.getByTestId('review-score').textContent).toContain('88/100');
    expect(screen.getByTestId('review-iterations').textContent).toContain('1');
    expect(screen.getByTestId('review-tokens').textContent).toMatch(/12,345\s·\s678/);
    expect(screen.getByTestId('review-cost').textContent).toContain('$0.00');

    const file = treeFile('src/greet.ts');
    expect(file.dataset.status).toBe('modified');
    expect(within(file).getByTestId('diff-tree-count-error').textContent).toBe('1');
    expect(within(file).getByTestId('diff-tree-count-warning').textContent).toBe('2');
    expect(within(file).getByTestId('diff-tree-count-info').textContent).toBe('1');
    expect(treeFile('src/util/strings.ts').dataset.status).toBe('added');
    expect(within(treeFile('assets/logo.png')).getByText('binary')).toBeTruthy();

    // A directory folds away its files and opens again.
    const src = screen
      .getAllByTestId('diff-tree-dir')
      .find((dir) => dir.dataset.path === 'src') as HTMLElement;
    const toggle = within(src).getAllByRole('button')[0] as HTMLElement;
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.getAllByTestId('diff-tree-file').map((node) => node.dataset.path)).toEqual([
      'assets/logo.png',
      'data/big.json',
    ]);
    fireEvent.click(toggle);
    expect(screen.getAllByTestId('diff-tree-file')).toHaveLength(5);
  });

  it('pins each finding under its line, and shows the others above the file and the general ones above all', async () => {
    await open();
    // The file with the most severe findings opens first.
    expect(screen.getByTestId('file-diff').dataset.path).toBe('src/greet.ts');
    const line4 = notesUnder(4);
    expect(line4).not.toBeNull();
    const pinned = within(line4 as HTMLElement).getByTestId('diff-finding');
    expect(pinned.dataset.severity).toBe('error');
    expect(pinned.textContent).toContain('b must not change');
    expect(row(4)?.dataset.kind).toBe('add');

    const aside = screen.getByTestId('file-notes');
    expect(
      within(aside)
        .getAllByTestId('diff-finding')
        .map((f) => f.dataset.line),
    ).toEqual(['40', '0']);
    expect(aside.textContent).toContain('line 40 (not among the changed lines)');
    expect(aside.textContent).toContain('the whole file');

    const general = screen.getByTestId('general-findings');
    expect(general.textContent).toContain('No tests were added.');
  });

  it('shows what the model wrote as text, never as markup', async () => {
    const { container } = await open();
    const note = within(notesUnder(5) as HTMLElement).getByTestId('diff-finding');
    expect(note.textContent).toContain('<img src=x onerror="window.hacked=1"> is text');
    expect(container.querySelector('img')).toBeNull();
  });

  it('jumps to a finding’s line when it is chosen in the tree', async () => {
    const scrolled = vi.fn();
    Element.prototype.scrollIntoView = scrolled;
    await open();
    fireEvent.click(within(treeFile('src/util/strings.ts')).getAllByRole('button')[0] as HTMLElement);
    expect(screen.getByTestId('file-diff').dataset.path).toBe('src/util/strings.ts');

    const finding = within(treeFile('src/greet.ts'))
      .getAllByTestId('diff-tree-finding')
      .find((item) => item.dataset.line === '4') as HTMLElement;
    expect(finding.dataset.severity).toBe('error');
    fireEvent.click(finding);
    expect(screen.getByTestId('file-diff').dataset.path).toBe('src/greet.ts');
    await waitFor(() => expect(row(4)?.dataset.focused).toBe('true'));
    expect(scrolled.mock.contexts.at(-1)).toBe(row(4));
  });

  it('comments on a line: the gutter opens a box, the comment is posted and shown under its line, and deleted', async () => {
    await open();
    const gutter = screen
      .getAllByTestId('diff-gutter')
      .find((button) => button.dataset.line === '6') as HTMLElement;
    fireEvent.click(gutter);
    fireEvent.change(screen.getByTestId('diff-comment-input'), {
      target: { value: '  Rename d to total.  ' },
    });
    fireEvent.click(screen.getByTestId('diff-comment-submit'));

    await waitFor(() => expect(notesUnder(6)?.querySelector('[data-testid="diff-comment"]')).toBeTruthy());
    const posted = requests.find((r) => r.method === 'POST');
    expect(posted?.body).toEqual({ path: 'src/greet.ts', line: 6, body: 'Rename d to total.' });
    expect(screen.queryByTestId('diff-comment-form')).toBeNull();
    expect(screen.getByTestId('review-comment-hint').textContent).toContain('1 open comment goes');
    const comment = within(notesUnder(6) as HTMLElement).getByTestId('diff-comment');
    expect(comment.textContent).toContain('Rename d to total.');

    fireEvent.click(within(comment).getByTestId('diff-comment-delete'));
    await waitFor(() => expect(screen.queryByTestId('diff-comment')).toBeNull());
    expect(requests.some((r) => r.method === 'DELETE' && r.url.endsWith('/comments/comment-1'))).toBe(true);
    expect(store.comments).toEqual([]);
  });

  it('offers no comment box once the task has left Review, and shows comments already sent as addressed', async () => {
    store.comments.push({
      id: 'sent',
      path: 'src/greet.ts',
      line: 3,
      body: 'Keep a as it is.',
      createdAt: new Date(0).toISOString(),
      addressedAt: new Date(1).toISOString(),
    });
    await open('done');
    await waitFor(() => expect(notesUnder(3)).not.toBeNull());
    expect(screen.queryAllByTestId('diff-gutter')).toEqual([]);
    const sent = within(notesUnder(3) as HTMLElement).getByTestId('diff-comment');
    expect(sent.dataset.open).toBe('false');
    expect(sent.textContent).toContain('sent to the coder');
    expect(within(sent).queryByTestId('diff-comment-delete')).toBeNull();
  });

  it('says so instead of a patch for a binary or a too-large file, and shows a deleted file’s old lines', async () => {
    await open();
    fireEvent.click(within(treeFile('assets/logo.png')).getAllByRole('button')[0] as HTMLElement);
    expect(screen.getByTestId('file-diff-note').textContent).toContain('Binary file');
    expect(screen.queryByTestId('diff-unified')).toBeNull();

    fireEvent.click(within(treeFile('data/big.json')).getAllByRole('button')[0] as HTMLElement);
    expect(screen.getByTestId('file-diff-note').textContent).toContain('2,510 lines, too many to show');

    fireEvent.click(within(treeFile('src/old.ts')).getAllByRole('button')[0] as HTMLElement);
    expect(row(1)?.dataset.kind).toBe('del');
    // A deleted file has no new lines to comment on.
    expect(screen.queryAllByTestId('diff-gutter')).toEqual([]);
  });

  it('shows the old and new lines side by side', async () => {
    await open();
    fireEvent.click(screen.getByTestId('diff-mode-split'));
    const table = screen.getByTestId('diff-split');
    const changed = row(4) as HTMLElement;
    expect(table.contains(changed)).toBe(true);
    expect(changed.querySelector('[data-side="old"]')?.textContent).toContain('const b = 2;');
    expect(changed.querySelector('[data-side="new"]')?.textContent).toContain('const b = 3;');
    expect(notesUnder(4)?.textContent).toContain('b must not change');
  });

  it('colours the code with Shiki tokens rendered as text', async () => {
    await open();
    await waitFor(
      () => {
        // One colour per theme, as the variables .code-token reads.
        const spans = row(5)?.querySelectorAll<HTMLElement>('span.code-token') ?? [];
        const coloured = [...spans].filter((span) => span.style.getPropertyValue('--code-light') !== '');
        expect(coloured.length).toBeGreaterThan(0);
        expect(coloured.some((span) => span.style.getPropertyValue('--code-dark') !== '')).toBe(true);
      },
      { timeout: 15_000 },
    );
    expect(row(5)?.textContent).toContain('/* a comment */ const c = `template`;');
  }, 30_000);

  it('falls back to the recorded files when the branch is gone', async () => {
    stubFetch({
      [DIFF]: () =>
        new Response(
          JSON.stringify({
            error: 'RUN_BRANCH_GONE',
            message: 'The run’s branch autocoder/x no longer exists',
          }),
          { status: 409 },
        ),
      ...store.routes,
    });
    renderAt(
      <ReviewPanel run={run({ status: 'cancelled' })} taskStatus="backlog" fallback={<p>fallback</p>} />,
    );
    const note = await screen.findByTestId('review-panel-unavailable');
    expect(note.textContent).toContain('no longer exists');
    expect(note.textContent).toContain('fallback');
  });
});
