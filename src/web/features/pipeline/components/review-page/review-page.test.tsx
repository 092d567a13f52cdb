// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DiffFileContent, RunDiff } from '@/contracts/diff';
import type { Task } from '@/contracts/tasks';
import { commentsServer, diffFile, patchOf, runDiffOf } from '@/web/testing/diff-fixtures';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { runDetail } from '@/web/testing/run-fixtures';
import { usePipelineStore } from '../../stores/pipeline-store';
import { viewedStorageKey } from '../../utils/viewed-marks';
import { ReviewPage } from './review-page';

const RUN = '00000000-0000-4000-8000-000000000001';
const T = 'task-1';
const HEAD = 'c'.repeat(40);
const DIFF = `GET /api/pipeline/runs/${RUN}/diff`;
const FILE = `GET /api/pipeline/runs/${RUN}/diff/file`;

/** greet.ts at head: 40 lines; the change is at lines 4-5. */
const greetAfter = Array.from({ length: 40 }, (_, i) => `const line${i + 1} = ${i + 1};`);
greetAfter[3] = 'const b = 3;';
greetAfter[4] = 'const c = 4;';

const greetPatch = patchOf('src/greet.ts', '@@ -3,4 +3,5 @@', [
  ' const line3 = 3;',
  '-const b = 2;',
  '+const b = 3;',
  '+const c = 4;',
  ' const line5 = 5;',
  ' const line6 = 6;',
]);
const greet = diffFile({
  path: 'src/greet.ts',
  additions: 2,
  deletions: 1,
  patch: greetPatch,
  findings: [{ severity: 'error', line: 4, message: 'b must not change.' }],
});
const strings = diffFile({
  path: 'src/util/strings.ts',
  status: 'added',
  additions: 2,
  patch: patchOf('src/util/strings.ts', '@@ -0,0 +1,2 @@', [
    '+export const upper = 1;',
    '+export const lower = 2;',
  ]),
  findings: [{ severity: 'warning', line: 2, message: 'Name it better.' }],
});

const task: Task = {
  id: T,
  projectId: 'p1',
  title: 'Add a greeting',
  description: '',
  category: 'feature',
  priority: 'medium',
  status: 'review',
  position: 0,
  subtasks: null,
  coderEngine: null,
  createdAt: new Date(1_000).toISOString(),
  updatedAt: new Date(1_000).toISOString(),
};

let diff: RunDiff;
let requests: StubRequest[];

function content(): DiffFileContent {
  return {
    path: 'src/greet.ts',
    oldPath: null,
    status: 'modified',
    language: 'typescript',
    binary: false,
    before: null,
    after: `${greetAfter.join('\n')}\n`,
    patch: greetPatch,
    truncated: false,
    limitBytes: 1024 * 1024,
  };
}

beforeEach(() => {
  localStorage.clear();
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  diff = runDiffOf([greet, strings]);
  const comments = commentsServer(RUN);
  ({ requests } = stubFetch({
    [`GET /api/pipeline/${T}/status`]: () => ({
      ...runDetail({
        id: RUN,
        taskId: T,
        phase: 'completed',
        status: 'passed',
        headCommit: HEAD,
        reviewScore: 88,
      }),
      runId: RUN,
    }),
    [DIFF]: () => diff,
    [FILE]: () => content(),
    ...comments.routes,
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const show = () =>
  renderAt(<ReviewPage projectId="p1" task={task} userId="user-1" />, {
    url: `/projects/p1/tasks/${T}/review`,
    path: '/projects/:projectId/tasks/:taskId/review',
  });

const fileSection = (path: string) =>
  document.querySelector<HTMLElement>(`[data-testid="review-file"][data-path="${path}"]`)!;

describe('the review page', () => {
  it('stacks every file and keeps viewed marks per person, until the file changes', async () => {
    const view = show();
    await screen.findByTestId('review-file-tree');
    expect(screen.getAllByTestId('review-file')).toHaveLength(2);
    expect(screen.getByTestId('viewed-count').textContent).toBe('0 / 2 viewed');

    fireEvent.click(screen.getByTestId('viewed-src/greet.ts'));
    expect(screen.getByTestId('viewed-count').textContent).toBe('1 / 2 viewed');
    // A viewed file folds away.
    expect(fileSection('src/greet.ts').dataset.viewed).toBe('true');
    expect(fileSection('src/greet.ts').dataset.collapsed).toBe('true');
    expect(within(fileSection('src/greet.ts')).queryByTestId('diff-unified')).toBeNull();
    await waitFor(() =>
      expect(JSON.parse(localStorage.getItem(viewedStorageKey('user-1', T)) ?? '{}')).toHaveProperty(
        'src/greet.ts',
      ),
    );

    // Another visit: still viewed.
    view.unmount();
    const again = show();
    await screen.findByTestId('review-file-tree');
    expect(fileSection('src/greet.ts').dataset.viewed).toBe('true');
    expect((screen.getByTestId('viewed-src/greet.ts') as HTMLInputElement).checked).toBe(true);
    again.unmount();

    // A new commit changed the file: it is not viewed any more.
    diff = runDiffOf([{ ...greet, patch: greetPatch.replace('const c = 4;', 'const c = 5;') }, strings]);
    show();
    await screen.findByTestId('review-file-tree');
    expect(fileSection('src/greet.ts').dataset.viewed).toBe('false');
    expect(screen.getByTestId('viewed-count').textContent).toBe('0 / 2 viewed');
  });

  it('expands the context around a hunk from the file at head', async () => {
    show();
    await screen.findByTestId('review-file-tree');
    const section = fileSection('src/greet.ts');
    expect(section.querySelector('tr[data-anchor="1"]')).toBeNull();
    // Lines 1-2 above the hunk: few enough to show at once. The file is read then, not before.
    expect(requests.some((request) => request.url.includes('/diff/file'))).toBe(false);
    const above = section.querySelector<HTMLElement>('[data-testid="diff-expander"][data-gap="0"]')!;
    expect(above.dataset.hidden).toBe('2');
    fireEvent.click(within(above).getByTestId('expand-all'));
    await waitFor(() => expect(section.querySelector('tr[data-anchor="1"]')).not.toBeNull());
    expect(section.querySelector('tr[data-anchor="2"]')?.textContent).toContain('const line2 = 2;');
    expect(requests.find((request) => request.url.includes('/diff/file'))?.url).toBe(
      `/api/pipeline/runs/${RUN}/diff/file?path=src%2Fgreet.ts`,
    );

    // Below the hunk (lines 8-40, 33 hidden): 20 more, then the rest.
    expect(section.querySelector('tr[data-anchor="8"]')).toBeNull();
    const below = () => section.querySelector<HTMLElement>('[data-testid="diff-expander"][data-gap="1"]');
    expect(below()?.dataset.hidden).toBe('33');
    fireEvent.click(within(below()!).getByTestId('expand-down'));
    await waitFor(() => expect(section.querySelector('tr[data-anchor="27"]')).not.toBeNull());
    expect(section.querySelector('tr[data-anchor="28"]')).toBeNull();
    expect(below()?.dataset.hidden).toBe('13');
    fireEvent.click(within(below()!).getByTestId('expand-all'));
    await waitFor(() => expect(section.querySelector('tr[data-anchor="40"]')).not.toBeNull());
    expect(below()).toBeNull();
    // Unchanged lines keep both numbers: 3 added, 1 deleted above line 10 shifts the old one by 1.
    const ten = section.querySelector('tr[data-anchor="10"]')!;
    expect(ten.querySelector('td')?.textContent).toBe('9');

    // Side by side shows the expanded lines too.
    fireEvent.click(screen.getByTestId('review-mode-split'));
    expect(section.querySelector('[data-testid="diff-split"] tr[data-anchor="40"]')).not.toBeNull();
  });

  it('moves with j/k and n/p, marks with v, and ignores keys typed into a field', async () => {
    show();
    await screen.findByTestId('review-file-tree');
    const key = (k: string, target: Element = document.body) => fireEvent.keyDown(target, { key: k });

    // The tree's order: directories first.
    key('j');
    expect(fileSection('src/util/strings.ts').dataset.current).toBe('true');
    key('j');
    expect(fileSection('src/greet.ts').dataset.current).toBe('true');
    expect(fileSection('src/util/strings.ts').dataset.current).toBeUndefined();
    key('k');
    expect(fileSection('src/util/strings.ts').dataset.current).toBe('true');

    key('v');
    expect(fileSection('src/util/strings.ts').dataset.viewed).toBe('true');
    expect(fileSection('src/util/strings.ts').dataset.collapsed).toBe('true');
    expect(screen.getByTestId('viewed-count').textContent).toBe('1 / 2 viewed');

    // n: the first finding, in the (viewed, folded) file it is in, which opens for it.
    key('n');
    const note = (index: number) => screen.getAllByTestId('review-note-item')[index];
    expect(note(0)?.dataset.current).toBe('true');
    expect(note(0)?.dataset.path).toBe('src/util/strings.ts');
    expect(fileSection('src/util/strings.ts').dataset.collapsed).toBe('false');
    expect(
      fileSection('src/util/strings.ts').querySelector('tr[data-anchor="2"]')?.getAttribute('data-focused'),
    ).toBe('true');
    key('n');
    expect(note(1)?.dataset.current).toBe('true');
    expect(fileSection('src/greet.ts').dataset.current).toBe('true');
    expect(
      fileSection('src/greet.ts').querySelector('tr[data-anchor="4"]')?.getAttribute('data-focused'),
    ).toBe('true');
    key('p');
    expect(note(0)?.dataset.current).toBe('true');
    expect(fileSection('src/util/strings.ts').dataset.current).toBe('true');

    // Typing a comment is not a shortcut.
    fireEvent.click(fileSection('src/greet.ts').querySelector('[data-testid="diff-gutter"][data-line="5"]')!);
    const input = await screen.findByTestId('diff-comment-input');
    key('j', input);
    key('v', input);
    expect(fileSection('src/util/strings.ts').dataset.current).toBe('true');
    expect(fileSection('src/util/strings.ts').dataset.viewed).toBe('true');
    expect(fileSection('src/greet.ts').dataset.current).toBeUndefined();
  });

  it('shows the check of the run as its Checks', async () => {
    show();
    await screen.findByTestId('review-file-tree');
    expect(screen.getByTestId('review-checks').dataset.result).toBe('none');
    expect(screen.getByTestId('btn-approve-pipeline')).toBeTruthy();
  });
});

describe('the link to the page', () => {
  it('takes the drawer’s task from the board’s URL', async () => {
    const { OpenReviewLink } = await import('./open-review-link');
    renderAt(<OpenReviewLink />, { url: `/projects/p1?task=${T}`, path: '/projects/:projectId' });
    expect(screen.getByTestId('open-review-page').getAttribute('href')).toBe(
      `/projects/p1/tasks/${T}/review`,
    );
  });
});
