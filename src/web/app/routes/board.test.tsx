// @vitest-environment happy-dom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TaskCard } from '@/contracts/tasks';
import { usePipelineStore } from '@/web/features/pipeline/stores/pipeline-store';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { runSummary } from '@/web/testing/run-fixtures';
import { BoardRoute } from './board';

const P = '6f1c2a9e-0000-4000-8000-000000000001';

const card = (
  id: string,
  title: string,
  status: TaskCard['status'],
  position: number,
  run: TaskCard['run'] = null,
) => ({ id, title, category: 'feature', priority: 'medium', status, position, run }) satisfies TaskCard;

const coding = runSummary({
  id: 'run-7',
  taskId: 't-building',
  phase: 'coding',
  subtask: { index: 2, total: 3 },
});

/** GET /api/tasks as the server answers it: every card of the project, by status, then position. */
let tasks: TaskCard[];

beforeEach(() => {
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  tasks = [
    card('t-idea', 'Write the README', 'backlog', 1000),
    card('t-next', 'Add a greeting module', 'backlog', 2000),
    card('t-building', 'Export a farewell', 'building', 1000, {
      id: coding.id,
      taskId: coding.taskId,
      phase: coding.phase,
      status: coding.status,
      iteration: coding.iteration,
      simulated: coding.simulated,
      subtask: coding.subtask,
      roundStart: coding.roundStart,
      startedAt: coding.startedAt,
    }),
    card('t-done', 'Set up the project', 'done', 1000),
  ];
  stubFetch({
    'GET /api/tasks': () => ({ tasks }),
    [`GET /api/projects/${P}/locks`]: { branch: 'main', locks: [] },
    // The project's settings (its token budget goes to the drawer's pipeline section).
    'GET /api/projects': { projects: [] },
  });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const column = (status: string) => screen.getByTestId(`column-${status}`);
const titlesIn = (status: string) =>
  within(column(status))
    .queryAllByTestId('task-card')
    .map((el) => el.querySelector('p')?.textContent);

async function openBoard() {
  renderAt(<BoardRoute />, { url: `/projects/${P}`, path: '/projects/:projectId' });
  await screen.findAllByTestId('task-card');
}

describe('the board', () => {
  it('shows the five columns with their cards, in order, from the task list', async () => {
    await openBoard();
    for (const status of ['backlog', 'spec', 'building', 'review', 'done'])
      expect(column(status)).toBeTruthy();
    expect(titlesIn('backlog')).toEqual(['Write the README', 'Add a greeting module']);
    expect(titlesIn('spec')).toEqual([]);
    expect(titlesIn('building')).toEqual(['Export a farewell']);
    expect(titlesIn('done')).toEqual(['Set up the project']);
    expect(screen.getByTestId('column-backlog-count').textContent).toBe('2');
    // The run on the list's card: its phase and subtask.
    const badge = within(column('building')).getByTestId('task-phase-badge');
    expect(badge.textContent).toContain('Coding 2/3');
  });

  it('follows the project stream: a run summary moves the badge, a task move the card', async () => {
    await openBoard();
    const stream = FakeEventSource.find(`/api/sse/projects/${P}`);
    if (!stream) throw new Error('the board opened no project stream');
    act(() => {
      stream.send('run-update', { run: { ...coding, phase: 'reviewing', subtask: null }, timestamp: 2 }, 41);
    });
    expect(within(column('building')).getByTestId('task-phase-badge').textContent).toContain('Reviewing');

    tasks = tasks.map((t) => (t.id === 't-next' ? { ...t, status: 'spec' } : t));
    act(() => {
      stream.send('task-status', { taskId: 't-next', newStatus: 'spec', timestamp: 3 }, 42);
    });
    await waitFor(() => expect(titlesIn('spec')).toEqual(['Add a greeting module']));
    expect(titlesIn('backlog')).toEqual(['Write the README']);
  });
});
