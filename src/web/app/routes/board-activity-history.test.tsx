// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type {
  LockActivityData,
  ProjectActivityEvent,
  ProjectActivityResponse,
} from '@/contracts/coordination';
import type { TaskCard } from '@/contracts/tasks';
import { useActivityStore } from '@/web/features/activity/stores/activity-store';
import { usePipelineStore } from '@/web/features/pipeline/stores/pipeline-store';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { BoardRoute } from './board';

/** Issue 27 item 4: the Activity feed shows the project's recent history after a reload, and pages back. */
const P = '6f1c2a9e-0000-4000-8000-000000000003';

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

const alice = { id: '0b6f7a52-1d9e-4c1c-9d0e-3f3a1c2b4d5e', name: 'Alice' };
const run = { id: '9a1f3c7e-2b4d-4e6f-8a0b-1c2d3e4f5a6b', name: 'Export a farewell' };

const data = (over: Partial<LockActivityData> = {}): LockActivityData => ({
  branch: 'main',
  agent: alice,
  files: ['src/a.ts'],
  status: 'WRITING',
  message: 'Alice rewrites a.',
  timestamp: Date.UTC(2026, 0, 1, 12, 0),
  ...over,
});

const taken = (id: number, over: Partial<LockActivityData> = {}): ProjectActivityEvent => ({
  id,
  type: 'lock-taken',
  data: data(over),
});

let pages: Record<string, ProjectActivityResponse>;
let requests: StubRequest[];

beforeEach(() => {
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  useActivityStore.setState({ projectId: null, activity: { entries: [], held: {}, seen: 0 } });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  const tasks = [
    card('t-idea', 'Write the README', 'backlog'),
    card('t-building', 'Export a farewell', 'building'),
  ];
  pages = {};
  ({ requests } = stubFetch({
    'GET /api/tasks': () => ({ tasks }),
    [`GET /api/projects/${P}/locks`]: () => ({ branch: 'main', locks: [] }),
    [`GET /api/projects/${P}/activity`]: ({ url }: StubRequest) => {
      const before = new URL(url, 'http://localhost').searchParams.get('before') ?? 'newest';
      return pages[before] ?? { events: [], hasMore: false };
    },
    'GET /api/projects': { projects: [] },
  }));
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
const activityRequests = () => requests.filter((r) => r.url.includes('/activity'));

describe('the Activity feed after a reload', () => {
  it('shows the recent history with names, a run linked to its task, and adds live events once each', async () => {
    pages.newest = {
      hasMore: false,
      events: [
        {
          id: 12,
          type: 'lock-refused',
          data: {
            ...data({ agent: alice, message: 'Alice wants x.' }),
            files: ['src/x.ts'],
            conflicts: ['src/x.ts'],
            holder: run.id,
            holderName: run.name,
            holderTaskId: 't-building',
          },
        },
        taken(11, { agent: run, files: ['src/x.ts'], message: 'Create src/x.ts.', taskId: 't-building' }),
        taken(10),
      ],
    };
    const stream = await openBoard();
    await waitFor(() => expect(entries()).toHaveLength(3));
    expect(within(feed()).queryByText(/No agent activity yet/)).toBeNull();
    const [refused, runTook, aliceTook] = entries();
    expect(aliceTook?.textContent).toContain('Alice locked (WRITING) src/a.ts');
    expect(runTook?.textContent).toContain('Export a farewell locked (WRITING) src/x.ts');
    // The holder by name, not its id; a run's name links to its task's drawer.
    expect(refused?.textContent).toContain('Alice was refused src/x.ts (held by Export a farewell)');
    expect(refused?.textContent).not.toContain(run.id);
    const links = within(feed()).getAllByTestId('activity-task-link');
    expect(links.map((a) => a.textContent)).toEqual(['Export a farewell', 'Export a farewell']);
    for (const link of links) expect(link.getAttribute('href')).toContain('task=t-building');
    expect(within(refused as HTMLElement).queryAllByRole('link')).toHaveLength(1);

    // The stream repeats the newest event (it started before the history was read) and adds one.
    act(() => {
      stream.send('lock-taken', data({ message: 'Alice rewrites a.' }), 10);
      stream.send('lock-released', data({ status: 'OPEN', message: 'Alice is done.' }), 13);
    });
    expect(entries().map((el) => el.dataset.type)).toEqual([
      'lock-released',
      'lock-refused',
      'lock-taken',
      'lock-taken',
    ]);

    fireEvent.click(links[0] as HTMLElement);
    expect(await screen.findByRole('dialog')).toBeTruthy();
  });

  it('loads older pages on scroll to the end, and with Load older, until there are none', async () => {
    pages.newest = {
      hasMore: true,
      events: [taken(30, { message: 'Third.' }), taken(29, { message: 'Second.' })],
    };
    pages['29'] = { hasMore: true, events: [taken(20, { message: 'First.' })] };
    pages['20'] = { hasMore: false, events: [taken(5, { message: 'Zeroth.' })] };
    await openBoard();
    await waitFor(() => expect(entries()).toHaveLength(2));
    expect(activityRequests().map((r) => r.url)).toEqual([`/api/projects/${P}/activity?limit=50`]);

    fireEvent.scroll(within(feed()).getByTestId('activity-list'));
    await waitFor(() => expect(entries()).toHaveLength(3));
    expect(activityRequests().at(-1)?.url).toBe(`/api/projects/${P}/activity?limit=50&before=29`);
    expect(entries().at(-1)?.textContent).toContain('First.');

    fireEvent.click(within(feed()).getByRole('button', { name: 'Load older' }));
    await waitFor(() => expect(entries()).toHaveLength(4));
    expect(activityRequests().at(-1)?.url).toBe(`/api/projects/${P}/activity?limit=50&before=20`);
    expect(entries().map((el) => el.textContent?.match(/“(.*)”/)?.[1])).toEqual([
      'Third.',
      'Second.',
      'First.',
      'Zeroth.',
    ]);
    expect(within(feed()).queryByRole('button', { name: 'Load older' })).toBeNull();
    fireEvent.scroll(within(feed()).getByTestId('activity-list'));
    expect(activityRequests()).toHaveLength(3);
  });

  it('says there is no activity only once the history is known to be empty', async () => {
    await openBoard();
    expect(await within(feed()).findByText(/No agent activity yet/)).toBeTruthy();
    expect(activityRequests()).toHaveLength(1);
  });
});
