// @vitest-environment happy-dom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LockActivityData, ProjectLock } from '@/contracts/coordination';
import type { TaskCard } from '@/contracts/tasks';
import { MAX_FEED_ENTRIES } from '@/web/features/activity/stores/activity-reducer';
import { useActivityStore } from '@/web/features/activity/stores/activity-store';
import { usePipelineStore } from '@/web/features/pipeline/stores/pipeline-store';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { BoardRoute } from './board';

const P = '6f1c2a9e-0000-4000-8000-000000000002';

const card = (id: string, title: string, status: TaskCard['status']) =>
  ({
    id,
    title,
    category: 'feature',
    priority: 'medium',
    status,
    position: 1000,
    run: null,
  }) satisfies TaskCard;

const alice = { id: 'tok-alice', name: 'Alice' };
const run = { id: 'run-9', name: 'Export a farewell' };

const activity = (over: Partial<LockActivityData> = {}): LockActivityData => ({
  branch: 'main',
  agent: alice,
  files: ['src/a.ts'],
  status: 'WRITING',
  message: 'Alice rewrites a.',
  timestamp: Date.UTC(2026, 0, 1, 12, 0),
  ...over,
});

/** GET /api/projects/:id/locks as the server answers it when the board opens. */
let locks: ProjectLock[];

beforeEach(() => {
  locks = [];
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  useActivityStore.setState({ projectId: null, activity: { entries: [], held: {}, seen: 0 } });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  const tasks = [
    card('t-idea', 'Write the README', 'backlog'),
    card('t-building', 'Export a farewell', 'building'),
  ];
  stubFetch({
    'GET /api/tasks': () => ({ tasks }),
    [`GET /api/projects/${P}/locks`]: () => ({ branch: 'main', locks }),
    // The feed's history: none here (board-activity-history.test.tsx loads some).
    [`GET /api/projects/${P}/activity`]: { events: [], hasMore: false },
    // The project's settings (its token budget goes to the drawer's pipeline section).
    'GET /api/projects': { projects: [] },
  });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

async function openBoard() {
  renderAt(<BoardRoute />, { url: `/projects/${P}`, path: '/projects/:projectId' });
  await screen.findAllByTestId('task-card');
  const stream = FakeEventSource.find(`/api/sse/projects/${P}`);
  if (!stream) throw new Error('the board opened no project stream');
  return stream;
}

const feed = () => screen.getByRole('complementary', { name: 'Activity' });
const entries = () => within(feed()).queryAllByTestId('activity-entry');
const cardOf = (taskId: string) => {
  const found = screen.getAllByTestId('task-card').find((el) => el.dataset.taskId === taskId);
  if (!found) throw new Error(`no card ${taskId}`);
  return found;
};

describe('the activity feed and lock badges', () => {
  it('shows every lock event of the project stream, newest first, with the agent and its message', async () => {
    const stream = await openBoard();
    expect(within(feed()).getByText(/No agent activity yet/)).toBeTruthy();
    act(() => {
      stream.send('lock-taken', activity(), 10);
      stream.send(
        'lock-refused',
        {
          ...activity({ agent: run, message: 'Create src/a.ts.', taskId: 't-building' }),
          conflicts: ['src/a.ts'],
          holder: alice.id,
        },
        11,
      );
      stream.send('lock-released', activity({ status: 'OPEN', message: 'Alice is done.' }), 12);
      stream.send(
        'lock-expired',
        {
          branch: 'main',
          agent: { id: 'tok-bob', name: 'Bob' },
          files: ['b.ts'],
          message: 'Bob reads b.',
          timestamp: 1,
        },
        13,
      );
    });
    expect(entries().map((el) => el.dataset.type)).toEqual([
      'lock-expired',
      'lock-released',
      'lock-refused',
      'lock-taken',
    ]);
    const [expired, released, refused, taken] = entries();
    expect(taken?.textContent).toContain('Alice locked (WRITING) src/a.ts');
    expect(taken?.textContent).toContain('Alice rewrites a.');
    expect(refused?.textContent).toContain('Export a farewell was refused src/a.ts (held by tok-alice)');
    expect(released?.textContent).toContain('Alice is done.');
    expect(expired?.textContent).toContain('Bob lost to expiry b.ts');
  });

  it('shows an agent’s message as text, never as markup', async () => {
    const stream = await openBoard();
    act(() => {
      stream.send('lock-taken', activity({ message: '<img src=x onerror="alert(1)"> fixes <b>a</b>.' }), 20);
    });
    const [entry] = entries();
    expect(entry?.textContent).toContain('<img src=x onerror="alert(1)"> fixes <b>a</b>.');
    expect(entry?.querySelector('img')).toBeNull();
    expect(entry?.querySelector('b')).toBeNull();
  });

  it(`keeps the ${MAX_FEED_ENTRIES} newest entries`, async () => {
    const stream = await openBoard();
    act(() => {
      for (let i = 1; i <= MAX_FEED_ENTRIES + 5; i++)
        stream.send('lock-taken', activity({ message: `Post number ${i}.` }), 100 + i);
    });
    expect(entries()).toHaveLength(MAX_FEED_ENTRIES);
    expect(entries()[0]?.textContent).toContain(`Post number ${MAX_FEED_ENTRIES + 5}.`);
    expect(entries().at(-1)?.textContent).toContain('Post number 6.');
  });

  it('badges the card whose run holds locks with their count, and drops it when they are released', async () => {
    const stream = await openBoard();
    expect(within(cardOf('t-building')).queryByTestId('task-lock-badge')).toBeNull();
    act(() => {
      stream.send('lock-taken', activity({ agent: run, files: ['src/x.ts'], taskId: 't-building' }), 30);
      stream.send(
        'lock-taken',
        activity({ agent: run, files: ['src/x.ts', 'docs/x.md'], taskId: 't-building' }),
        31,
      );
      // Another agent's locks badge no card.
      stream.send('lock-taken', activity({ files: ['src/y.ts'] }), 32);
    });
    const badge = within(cardOf('t-building')).getByTestId('task-lock-badge');
    expect(badge.textContent).toBe('2');
    expect(badge.getAttribute('aria-label')).toBe('Holds locks on 2 files');
    expect(within(cardOf('t-idea')).queryByTestId('task-lock-badge')).toBeNull();

    act(() => {
      stream.send(
        'lock-released',
        activity({ agent: run, status: 'OPEN', files: ['src/x.ts', 'docs/x.md'], taskId: 't-building' }),
        33,
      );
    });
    await waitFor(() => expect(within(cardOf('t-building')).queryByTestId('task-lock-badge')).toBeNull());
  });

  it('starts the badges from the locks held when the board opens, then follows the stream', async () => {
    locks = [
      {
        path: 'src/x.ts',
        status: 'WRITING',
        agent: run,
        message: 'Create src/x.ts.',
        timestamp: 1,
        taskId: 't-building',
      },
      {
        path: 'docs/x.md',
        status: 'WRITING',
        agent: run,
        message: 'Document x.',
        timestamp: 2,
        taskId: 't-building',
      },
      { path: 'src/y.ts', status: 'WRITING', agent: alice, message: 'Alice edits y.', timestamp: 3 },
    ];
    const stream = await openBoard();
    await waitFor(() =>
      expect(within(cardOf('t-building')).getByTestId('task-lock-badge').textContent).toBe('2'),
    );
    act(() => {
      stream.send(
        'lock-released',
        activity({ agent: run, status: 'OPEN', files: ['docs/x.md'], taskId: 't-building' }),
        40,
      );
    });
    expect(within(cardOf('t-building')).getByTestId('task-lock-badge').textContent).toBe('1');
  });
});
