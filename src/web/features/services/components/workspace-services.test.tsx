// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Service, ServiceList } from '@/contracts/services';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { outputStream, serviceOf } from '../testing';
import { WorkspaceServices } from './workspace-services';

const API = '/api/workspaces/ws1/services';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const listOf = (...services: Service[]): ServiceList => ({ services, warnings: [] });
const card = (id: string) => {
  const found = screen.getAllByTestId('service-card').find((element) => element.dataset.serviceId === id);
  if (!found) throw new Error(`no card for ${id}`);
  return within(found);
};

describe('a workspace’s services panel', () => {
  it('shows each service’s status, port and kind, and the files that are not services', async () => {
    stubFetch({
      [`GET ${API}`]: {
        services: [
          serviceOf({ id: 'web', name: 'Web', status: 'running', http: 43121, urlPath: '/app', pid: 321 }),
          serviceOf({
            id: 'worker',
            name: 'worker',
            http: undefined,
            status: 'error',
            error: 'exited with code 3',
          }),
          serviceOf({ id: 'api', name: 'API', http: 3000, passive: true }),
          serviceOf({ id: 'boot', name: 'Boot', status: 'starting', http: 'auto' }),
        ],
        warnings: [
          { file: '.discobot/services/notes', message: 'not executable: give it the run bit (chmod +x)' },
        ],
      } satisfies ServiceList,
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    await screen.findByTestId('workspace-services');

    expect(card('web').getByTestId('service-status').dataset.status).toBe('running');
    expect(card('web').getByTestId('service-port').textContent).toBe('http :43121 /app');
    expect(card('web').getByTestId('service-stop')).toBeTruthy();
    expect(card('worker').getByTestId('service-status').dataset.status).toBe('error');
    expect(card('worker').getByTestId('service-error').textContent).toBe('exited with code 3');
    expect(card('worker').queryByTestId('service-preview-toggle')).toBeNull();
    expect(card('api').getByTestId('service-status').textContent).toBe('Passive');
    expect(card('api').queryByTestId('service-start')).toBeNull();
    expect(card('api').queryByTestId('service-logs-toggle')).toBeNull();
    expect((card('api').getByTestId('service-preview-toggle') as HTMLButtonElement).disabled).toBe(false);
    expect(card('boot').getByTestId('service-port').textContent).toBe('http auto port');
    expect((card('boot').getByTestId('service-preview-toggle') as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId('service-warnings').textContent).toContain('chmod +x');
  });

  it('says what to do when the workspace has no services, and when it is gone', async () => {
    stubFetch({ [`GET ${API}`]: listOf() });
    const view = renderAt(<WorkspaceServices workspaceId="ws1" />);
    expect((await screen.findByText('No services in this workspace')).textContent).toBeTruthy();
    view.unmount();

    stubFetch({
      [`GET ${API}`]: () => json(404, { error: 'WORKSPACE_NOT_FOUND', message: 'Workspace not found' }),
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    expect((await screen.findByRole('alert')).textContent).toContain('the run’s worktree was removed');
  });

  it('starts a service (202): opens its log and shows it starting', async () => {
    let status: Service['status'] = 'stopped';
    const stream = outputStream();
    const { requests } = stubFetch({
      [`GET ${API}`]: () =>
        listOf(serviceOf({ status, ...(status === 'starting' ? { startedAt: 't1' } : {}) })),
      [`POST ${API}/web/start`]: () => {
        status = 'starting';
        return json(202, { status: 'starting', serviceId: 'web' });
      },
      [`GET ${API}/web/output`]: () => stream.response(),
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    fireEvent.click(await screen.findByTestId('service-start'));
    await waitFor(() => expect(screen.getByTestId('service-status').dataset.status).toBe('starting'));
    expect(screen.getByTestId('service-log')).toBeTruthy();
    expect(screen.getByTestId('service-stop')).toBeTruthy();
    expect(requests.some((request) => request.method === 'POST' && request.url === `${API}/web/start`)).toBe(
      true,
    );
    expect(screen.queryByTestId('service-action-error')).toBeNull();
  });

  it('takes a 409 on start as “already running”, not as a failure', async () => {
    let started = false;
    stubFetch({
      [`GET ${API}`]: () => listOf(serviceOf({ status: started ? 'running' : 'stopped', http: 43121 })),
      [`POST ${API}/web/start`]: () => {
        started = true;
        return json(409, {
          error: 'service_already_running',
          serviceId: 'web',
          pid: 42,
          message: 'already running',
        });
      },
      [`GET ${API}/web/output`]: () => outputStream().response(),
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    fireEvent.click(await screen.findByTestId('service-start'));
    await waitFor(() => expect(screen.getByTestId('service-status').dataset.status).toBe('running'));
    expect(screen.queryByTestId('service-action-error')).toBeNull();
  });

  it('explains a start the server refuses', async () => {
    stubFetch({
      [`GET ${API}`]: () => listOf(serviceOf()),
      [`POST ${API}/web/start`]: () =>
        json(400, { error: 'SANDBOX_DISABLED', message: 'Repository code does not run on this server' }),
      [`GET ${API}/web/output`]: () => outputStream().response(),
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    fireEvent.click(await screen.findByTestId('service-start'));
    expect((await screen.findByTestId('service-action-error')).textContent).toContain(
      'AUTOCODER_SANDBOX=off',
    );
    expect(screen.getByTestId('service-start')).toBeTruthy();
  });

  it('stops a running service, and takes “not running” as stopped', async () => {
    let status: Service['status'] = 'running';
    stubFetch({
      [`GET ${API}`]: () => listOf(serviceOf({ status, http: 43121 })),
      [`POST ${API}/web/stop`]: () => {
        status = 'stopped';
        return json(400, { error: 'service_not_running', serviceId: 'web', message: 'not running' });
      },
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    fireEvent.click(await screen.findByTestId('service-stop'));
    await waitFor(() => expect(screen.getByTestId('service-status').dataset.status).toBe('stopped'));
    expect(screen.queryByTestId('service-action-error')).toBeNull();
  });

  it('explains a stop that fails', async () => {
    stubFetch({
      [`GET ${API}`]: () => listOf(serviceOf({ status: 'running', http: 43121 })),
      [`POST ${API}/web/stop`]: () =>
        json(404, { error: 'service_not_found', serviceId: 'web', message: 'Service not found' }),
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    fireEvent.click(await screen.findByTestId('service-stop'));
    expect((await screen.findByTestId('service-action-error')).textContent).toContain(
      'no longer in .discobot/services/',
    );
  });

  it('previews a running http service through a fresh one-time ticket on every refresh', async () => {
    let ticket = 0;
    const { requests } = stubFetch({
      [`GET ${API}`]: () => listOf(serviceOf({ status: 'running', http: 43121, urlPath: '/app' })),
      [`POST ${API}/web/preview`]: () => ({
        url: `http://ws1-svc-web.localhost:3000/__autocoder/preview?ticket=t${++ticket}`,
      }),
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    fireEvent.click(await screen.findByTestId('service-preview-toggle'));
    const frame = () => screen.getByTestId('service-preview-frame') as HTMLIFrameElement;
    await waitFor(() => expect(frame().getAttribute('src')).toContain('ticket=t1'));
    expect(frame().getAttribute('sandbox')).toContain('allow-scripts');
    fireEvent.click(screen.getByTestId('service-preview-refresh'));
    await waitFor(() => expect(frame().getAttribute('src')).toContain('ticket=t2'));

    const tab = { opener: {} as unknown, location: { href: 'about:blank' }, close: vi.fn() };
    const open = vi.fn(() => tab);
    vi.stubGlobal('open', open);
    fireEvent.click(screen.getByTestId('service-preview-open'));
    await waitFor(() => expect(tab.location.href).toContain('ticket=t3'));
    expect(open).toHaveBeenCalledWith('about:blank', '_blank');
    expect(tab.opener).toBeNull();
    expect(requests.filter((request) => request.url.endsWith('/preview'))).toHaveLength(3);
  });

  it('shows why a preview cannot open', async () => {
    stubFetch({
      [`GET ${API}`]: () => listOf(serviceOf({ status: 'running', http: 43121 })),
      [`POST ${API}/web/preview`]: () =>
        json(400, { error: 'service_no_port', serviceId: 'web', message: 'no port' }),
    });
    renderAt(<WorkspaceServices workspaceId="ws1" />);
    fireEvent.click(await screen.findByTestId('service-preview-toggle'));
    expect((await screen.findByRole('alert')).textContent).toContain('declares no http or https port');
  });
});
