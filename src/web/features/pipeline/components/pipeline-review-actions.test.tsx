// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TaskStatus } from '@/contracts/tasks';
import { commentsServer, diffFile, patchOf, runDiffOf } from '@/web/testing/diff-fixtures';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { runDetail } from '@/web/testing/run-fixtures';
import { usePipelineStore } from '../stores/pipeline-store';
import { PipelinePanel } from './pipeline-panel';

const T = 'task-1';
const RUN = 'run-1';

const conflict = (files: string[]) =>
  new Response(JSON.stringify({ error: 'MERGE_CONFLICT', message: 'The branches conflict', files }), {
    status: 409,
    headers: { 'content-type': 'application/json' },
  });

let requests: StubRequest[];
let comments: ReturnType<typeof commentsServer>;

function serveRun(routes: Record<string, unknown>, mergeCommit: string | null = null) {
  const run = runDetail({
    id: RUN,
    taskId: T,
    status: 'passed',
    phase: 'completed',
    headCommit: 'c'.repeat(40),
    reviewScore: 88,
    mergeCommit,
    reviewFindings: { passed: true, score: 88, findings: [] },
  });
  comments = commentsServer(RUN);
  ({ requests } = stubFetch({
    [`GET /api/pipeline/${T}/status`]: { ...run, runId: RUN },
    [`GET /api/pipeline/runs/${RUN}/diff`]: runDiffOf([
      diffFile({
        path: 'src/greet.ts',
        status: 'added',
        additions: 1,
        patch: patchOf('src/greet.ts', '@@ -0,0 +1 @@', ['+export const greet = 1;']),
      }),
    ]),
    ...comments.routes,
    ...routes,
  }));
}

async function openPanel(taskStatus: TaskStatus) {
  renderAt(<PipelinePanel taskId={T} taskStatus={taskStatus} targetBranch="main" />);
  // The panel is a lazily loaded chunk: the first import may take a while.
  await screen.findByTestId('review-panel', {}, { timeout: 10_000 });
}

const posts = (path: string) => requests.filter((r) => r.method === 'POST' && r.url === path);

beforeEach(() => {
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('reviewing a passed run', () => {
  it('names the conflicting files when approving answers MERGE_CONFLICT, and says Request changes resolves them', async () => {
    serveRun({
      [`POST /api/pipeline/${T}/approve`]: () => conflict(['src/greet.ts', 'README.md']),
      [`POST /api/pipeline/${T}/request-changes`]: { runId: RUN, iteration: 1, conflicts: ['src/greet.ts'] },
    });
    await openPanel('review');
    fireEvent.click(screen.getByTestId('btn-approve-pipeline'));
    // Nothing is merged before the person confirms, in words naming the branch and its target.
    const dialog = await screen.findByRole('alertdialog');
    expect(within(dialog).getByRole('heading').textContent).toBe(
      'Merge autocoder/add-a-greeting-1a2b3c4d into main?',
    );
    expect(posts(`/api/pipeline/${T}/approve`)).toHaveLength(0);
    fireEvent.click(within(dialog).getByTestId('confirm-approve-pipeline'));
    const notice = await screen.findByTestId('merge-conflict');
    expect(notice.dataset.action).toBe('approve');
    expect(
      within(notice)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['src/greet.ts', 'README.md']);
    expect(notice.textContent).toContain('Request changes merges the default branch');
    // Nothing moved: the run can still be approved or sent back, and sending it back resolves the
    // conflicts, so no feedback is needed.
    fireEvent.click(screen.getByTestId('btn-request-changes'));
    expect((await screen.findByTestId('request-changes-conflicts')).textContent).toContain(
      'the coder resolves the 2 conflicting files',
    );
    fireEvent.click(screen.getByTestId('request-changes-submit'));
    await waitFor(() => expect(posts(`/api/pipeline/${T}/request-changes`)).toHaveLength(1));
    expect(posts(`/api/pipeline/${T}/request-changes`)[0]?.body).toMatchObject({ feedback: '' });
  });

  it('sends the open line comments with a request for changes, whose feedback may then be empty', async () => {
    serveRun({ [`POST /api/pipeline/${T}/request-changes`]: { runId: RUN, iteration: 1 } });
    comments.comments.push(
      {
        id: 'c1',
        path: 'src/greet.ts',
        line: 1,
        body: 'Name it greetPerson.',
        createdAt: new Date(0).toISOString(),
        addressedAt: null,
      },
      {
        id: 'c2',
        path: 'src/greet.ts',
        line: 1,
        body: 'And export a type.',
        createdAt: new Date(0).toISOString(),
        addressedAt: null,
      },
    );
    await openPanel('review');
    await waitFor(() => expect(screen.getAllByTestId('diff-comment')).toHaveLength(2));
    fireEvent.click(screen.getByTestId('btn-request-changes'));
    expect((await screen.findByTestId('request-changes-comments')).textContent).toBe(
      'Your 2 open comments on lines go with it.',
    );
    fireEvent.click(screen.getByTestId('request-changes-submit'));
    await waitFor(() => expect(posts(`/api/pipeline/${T}/request-changes`)).toHaveLength(1));
    expect(posts(`/api/pipeline/${T}/request-changes`)[0]?.body).toMatchObject({ feedback: '' });
    // The comments are read again: they are addressed now.
    await waitFor(() =>
      expect(requests.filter((r) => r.url === `/api/pipeline/runs/${RUN}/comments`).length).toBeGreaterThan(
        1,
      ),
    );
  });

  it('asks for feedback when no comment is open', async () => {
    serveRun({ [`POST /api/pipeline/${T}/request-changes`]: { runId: RUN, iteration: 1 } });
    await openPanel('review');
    fireEvent.click(screen.getByTestId('btn-request-changes'));
    await screen.findByTestId('request-changes-feedback');
    expect(screen.queryByTestId('request-changes-comments')).toBeNull();
    fireEvent.click(screen.getByTestId('request-changes-submit'));
    expect(await screen.findByText(/Say what should change/)).toBeTruthy();
    expect(posts(`/api/pipeline/${T}/request-changes`)).toHaveLength(0);
  });

  it('reverts an approval, and names the files when the revert conflicts', async () => {
    let answer: () => unknown = () => ({ status: 'review', revertCommit: 'r'.repeat(40), branch: 'b' });
    serveRun({ [`POST /api/pipeline/${T}/revert`]: () => answer() }, 'm'.repeat(40));
    await openPanel('done');
    expect(screen.getByTestId('pipeline-merge-commit').textContent).toBe('mmmmmmm');
    fireEvent.click(screen.getByTestId('btn-revert-approval'));
    const dialog = await screen.findByRole('alertdialog');
    expect(within(dialog).getByRole('heading').textContent).toBe(
      'Revert the merge of autocoder/add-a-greeting-1a2b3c4d from main?',
    );
    expect(posts(`/api/pipeline/${T}/revert`)).toHaveLength(0);
    fireEvent.click(within(dialog).getByTestId('confirm-revert-approval'));
    await waitFor(() => expect(posts(`/api/pipeline/${T}/revert`)).toHaveLength(1));
    expect(screen.queryByTestId('pipeline-action-error')).toBeNull();
    // What happened is said: the commit that reverted it.
    expect((await screen.findByTestId('pipeline-reverted')).textContent).toContain('rrrrrrr');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    // The button is disabled while the first revert is in flight; a click then would do nothing.
    await waitFor(() =>
      expect((screen.getByTestId('btn-revert-approval') as HTMLButtonElement).disabled).toBe(false),
    );

    answer = () => conflict(['docs/greet.md']);
    fireEvent.click(screen.getByTestId('btn-revert-approval'));
    fireEvent.click(await screen.findByTestId('confirm-revert-approval'));
    const notice = await screen.findByTestId('merge-conflict');
    expect(notice.dataset.action).toBe('revert');
    expect(notice.textContent).toContain('docs/greet.md');
    expect(notice.textContent).toContain('Not reverted');
  });
});
