// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LockActivityData, ProjectLock } from '@/contracts/coordination';
import type { GraphResponse } from '@/contracts/graph';
import type { Project } from '@/contracts/projects';
import { useGraphLockStore } from '@/web/features/graph/stores/graph-lock-store';
import { emptyLockState } from '@/web/features/graph/utils/lock-state';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { GraphRoute } from './graph';

const P = '6f1c2a9e-0000-4000-8000-000000000009';
const project: Project = {
  id: P,
  name: 'Shop',
  repoUrl: null,
  defaultBranch: 'main',
  checkCommand: null,
  taskTokenBudget: null,
  serviceEnv: {},
  sandboxAllowedHosts: null,
  coderEngine: 'autocoder',
  maxToolCalls: 60,
  checkTimeoutSeconds: 600,
  setupCommand: null,
  setupTimeoutSeconds: 600,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const graphAt = (version: string, extra: string[] = []): GraphResponse => ({
  nodes: ['src/app.ts', 'src/auth.ts', 'src/db.ts', ...extra].map((id) => ({ id, type: 'file' })),
  edges: [
    { source: 'src/app.ts', target: 'src/auth.ts', type: 'import' },
    { source: 'src/auth.ts', target: 'src/db.ts', type: 'import' },
    ...extra.map((id) => ({ source: id, target: 'src/auth.ts', type: 'import' as const })),
  ],
  locks: {},
  version,
  warnings: [],
});

const alice = { id: 'tok-alice', name: 'Alice' };
const bob = { id: 'tok-bob', name: 'Bob' };
const activity = (over: Partial<LockActivityData> = {}): LockActivityData => ({
  branch: 'main',
  agent: alice,
  files: ['src/auth.ts'],
  status: 'WRITING',
  message: 'Alice moves auth to sessions.',
  timestamp: Date.UTC(2026, 0, 1, 12, 0),
  ...over,
});

let graph: (request: StubRequest) => unknown;
let locks: ProjectLock[];
let requests: StubRequest[];

beforeEach(() => {
  locks = [];
  graph = () => graphAt('c0ffee1');
  useGraphLockStore.setState({ projectId: null, locks: emptyLockState('') });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  // happy-dom has no WebGL: Sigma's module needs the constructors' names to load, then fails to draw,
  // and the page says so (as in a browser without WebGL) — the rest of the page is what is tested here.
  vi.stubGlobal('WebGL2RenderingContext', class {});
  vi.stubGlobal('WebGLRenderingContext', class {});
  ({ requests } = stubFetch({
    'GET /api/projects': () => ({ projects: [project] }),
    'GET /api/graph': (request: StubRequest) => graph(request),
    [`GET /api/projects/${P}/locks`]: () => ({ branch: 'main', locks }),
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const graphRequests = () => requests.filter((request) => request.url.startsWith('/api/graph'));

async function openGraph() {
  const view = renderAt(<GraphRoute />, { url: `/projects/${P}/graph`, path: '/projects/:projectId/graph' });
  await screen.findByTestId('graph-view');
  const stream = FakeEventSource.find(`/api/sse/projects/${P}`);
  if (!stream) throw new Error('the graph opened no project stream');
  return { ...view, stream };
}

const legendNames = () => screen.queryAllByTestId('legend-holder-name').map((el) => el.textContent);
const legendFiles = (name: string) => {
  const holder = screen.getAllByTestId('legend-holder').find((el) => el.textContent?.includes(name));
  return holder
    ? within(holder)
        .getAllByTestId('legend-file')
        .map((el) => el.textContent)
    : [];
};

describe('the Graph page', () => {
  it('asks for the default branch of the project’s own remote and shows its head', async () => {
    await openGraph();
    const [request] = graphRequests();
    const url = new URL(request?.url ?? '', 'http://x');
    expect(url.searchParams.get('repo_url')).toBe(`${window.location.origin}/git/${P}.git`);
    expect(url.searchParams.get('branch')).toBe('main');
    expect(screen.getByTestId('graph-view').dataset.version).toBe('c0ffee1');
    expect(screen.getByText(/3 files · 2 imports/)).toBeTruthy();
    expect((await screen.findByTestId('graph-canvas-unavailable')).textContent).toContain(
      'This browser cannot draw the graph',
    );
  });

  it('lists the locks held when it opened, and follows lock events without fetching the graph again', async () => {
    locks = [
      {
        path: 'src/db.ts',
        status: 'READING',
        agent: bob,
        message: 'Bob reads the db.',
        timestamp: Date.UTC(2026, 0, 1, 11, 0),
      },
    ];
    const { stream } = await openGraph();
    await waitFor(() => expect(legendNames()).toEqual(['Bob']));

    act(() => stream.send('lock-taken', activity(), 11));
    expect(legendNames()).toEqual(['Alice', 'Bob']);
    expect(legendFiles('Alice')).toEqual(['src/auth.ts']);
    // Another branch's lock is not this graph's.
    act(() =>
      stream.send('lock-taken', activity({ agent: bob, branch: 'feature/x', files: ['src/app.ts'] }), 12),
    );
    expect(legendFiles('Bob')).toEqual(['src/db.ts(reading)']);

    act(() => stream.send('lock-released', activity({ status: 'OPEN', message: 'Done.' }), 13));
    expect(legendNames()).toEqual(['Bob']);
    act(() =>
      stream.send(
        'lock-expired',
        { branch: 'main', agent: bob, files: ['src/db.ts'], message: 'Bob reads the db.', timestamp: 1 },
        14,
      ),
    );
    expect(legendNames()).toEqual([]);
    expect(graphRequests()).toHaveLength(1);
  });

  it('shows the file picked in the legend: who holds it and why, as text, with its imports and importers', async () => {
    const { stream } = await openGraph();
    act(() => stream.send('lock-taken', activity({ message: 'Use <script>sessions</script>.' }), 20));
    fireEvent.click(screen.getByTestId('legend-file'));
    const panel = await screen.findByTestId('file-panel');
    expect(within(panel).getByTestId('file-panel-path').textContent).toBe('src/auth.ts');
    expect(within(panel).getByTestId('file-lock-agent').textContent).toBe('Alice');
    expect(within(panel).getByTestId('file-lock-message').textContent).toBe(
      '“Use <script>sessions</script>.”',
    );
    expect(panel.querySelector('script')).toBeNull();
    expect(within(within(panel).getByTestId('file-imports')).getByRole('button').textContent).toBe(
      'src/db.ts',
    );

    // Live: the lock goes, the panel says so.
    act(() => stream.send('lock-released', activity({ status: 'OPEN' }), 21));
    expect(within(panel).getByTestId('file-unlocked')).toBeTruthy();
  });

  it('finds a file by name and opens it', async () => {
    await openGraph();
    const search = screen.getByTestId('graph-search');
    fireEvent.change(search, { target: { value: 'db' } });
    fireEvent.submit(search.closest('form') as HTMLFormElement);
    expect((await screen.findByTestId('file-panel-path')).textContent).toBe('src/db.ts');
  });

  it('fetches the graph again when its branch moves to another head, and only then', async () => {
    const { stream } = await openGraph();
    act(() => stream.send('head-moved', { branch: 'feature/x', head: 'bead1234', timestamp: 1 }, 30));
    act(() => stream.send('head-moved', { branch: 'main', head: 'c0ffee1', timestamp: 1 }, 31));
    expect(graphRequests()).toHaveLength(1);

    graph = () => graphAt('deadbee', ['src/session.ts']);
    act(() => stream.send('head-moved', { branch: 'main', head: 'deadbee', timestamp: 2 }, 32));
    await waitFor(() => expect(screen.getByTestId('graph-view').dataset.version).toBe('deadbee'));
    expect(graphRequests()).toHaveLength(2);
    expect(screen.getByText(/4 files · 3 imports/)).toBeTruthy();
  });

  it('says it is building while the graph of a head is being built', async () => {
    graph = () => new Promise(() => {});
    renderAt(<GraphRoute />, { url: `/projects/${P}/graph`, path: '/projects/:projectId/graph' });
    expect((await screen.findByTestId('graph-building')).textContent).toContain(
      'Building the import graph of main…',
    );
  });

  it('offers a retry when the graph could not be built', async () => {
    let fail = true;
    graph = () =>
      fail
        ? new Response(
            JSON.stringify({
              error: 'GRAPH_UNAVAILABLE',
              message: 'The import graph of this branch could not be built: it took too long',
            }),
            { status: 503 },
          )
        : graphAt('c0ffee1');
    renderAt(<GraphRoute />, { url: `/projects/${P}/graph`, path: '/projects/:projectId/graph' });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The import graph could not be built');
    expect(alert.textContent).toContain('it took too long');
    fail = false;
    fireEvent.click(screen.getByTestId('retry'));
    expect(await screen.findByTestId('graph-view')).toBeTruthy();
  });

  it('says there is nothing to draw for a branch without commits or without source files', async () => {
    graph = () =>
      new Response(
        JSON.stringify({ error: 'BRANCH_NOT_FOUND', message: 'No branch "main" in this repository' }),
        {
          status: 404,
        },
      );
    const first = renderAt(<GraphRoute />, {
      url: `/projects/${P}/graph`,
      path: '/projects/:projectId/graph',
    });
    expect(await screen.findByText('No commits on main yet')).toBeTruthy();
    expect(screen.getByTestId('clone-command').textContent).toContain(`/git/${P}.git`);
    first.unmount();

    graph = () => ({ ...graphAt('c0ffee1'), nodes: [], edges: [] });
    renderAt(<GraphRoute />, { url: `/projects/${P}/graph`, path: '/projects/:projectId/graph' });
    expect(await screen.findByText('No source files on main yet')).toBeTruthy();
  });
});
