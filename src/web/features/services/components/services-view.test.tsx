// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Workspace } from '@/contracts/services';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { serviceOf } from '../testing';
import { ServicesView } from './services-view';
import { TaskServices } from './task-services';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const project: Workspace = {
  id: 'wsp',
  kind: 'project',
  projectId: 'p1',
  taskId: null,
  runId: null,
  branch: 'main',
};
const run: Workspace = {
  id: 'wsr',
  kind: 'run',
  projectId: 'p1',
  taskId: 't1',
  runId: 'r1',
  branch: 'autocoder/add-greeting-1a2b3c4d',
};

function stubWorkspaces(workspaces: Workspace[]) {
  return stubFetch({
    'GET /api/projects/p1/workspaces': { workspaces },
    'GET /api/workspaces/wsp/services': { services: [serviceOf({ name: 'Main web' })], warnings: [] },
    'GET /api/workspaces/wsr/services': { services: [serviceOf({ name: 'Branch web' })], warnings: [] },
  });
}

const shownWorkspaces = () =>
  screen.getAllByTestId('workspace-services').map((element) => element.dataset.workspaceId);

describe('the Services view', () => {
  it('lists the project’s workspaces, opens the project’s first, and compares a run’s beside it', async () => {
    stubWorkspaces([project, run]);
    renderAt(<ServicesView projectId="p1" />, { url: '/projects/p1/services' });
    await waitFor(() => expect(shownWorkspaces()).toEqual(['wsp']));
    const items = screen.getAllByTestId('workspace-item');
    expect(items.map((item) => item.textContent)).toEqual(['main · project', run.branch]);
    expect(items[0]?.getAttribute('aria-current')).toBe('true');

    fireEvent.click(items[1] as HTMLElement);
    await waitFor(() => expect(shownWorkspaces()).toEqual(['wsr']));
    fireEvent.click(screen.getByTestId('services-compare'));
    await waitFor(() => expect(shownWorkspaces()).toEqual(['wsp', 'wsr']));
    expect(screen.getByText('Main web')).toBeTruthy();
    expect(screen.getByText('Branch web')).toBeTruthy();
  });

  it('says when the project workspace is held behind its branch while its services run', async () => {
    stubWorkspaces([{ ...project, heldAt: 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678' }, run]);
    renderAt(<ServicesView projectId="p1" />, { url: '/projects/p1/services' });
    await waitFor(() => expect(screen.getByTestId('workspace-held').textContent).toContain('a1b2c3d'));
    expect(screen.getByTestId('workspace-held').textContent).toContain('main has moved on');

    cleanup();
    stubWorkspaces([{ ...project, heldAt: null }, run]);
    renderAt(<ServicesView projectId="p1" />, { url: '/projects/p1/services' });
    await waitFor(() => expect(shownWorkspaces()).toEqual(['wsp']));
    expect(screen.queryByTestId('workspace-held')).toBeNull();
  });

  it('opens the comparison a task links to', async () => {
    stubWorkspaces([project, run]);
    renderAt(<ServicesView projectId="p1" />, { url: '/projects/p1/services?workspace=wsr&compare=1' });
    await waitFor(() => expect(shownWorkspaces()).toEqual(['wsp', 'wsr']));
  });
});

describe('a task’s Services section', () => {
  it('shows the services of the task’s run worktree, with a link to compare', async () => {
    stubWorkspaces([project, run]);
    renderAt(<TaskServices projectId="p1" taskId="t1" />);
    await waitFor(() => expect(shownWorkspaces()).toEqual(['wsr']));
    expect(screen.getByTestId('task-services-compare').getAttribute('href')).toBe(
      '/projects/p1/services?workspace=wsr&compare=1',
    );
  });

  it('says so when the task has no worktree', async () => {
    stubWorkspaces([project]);
    renderAt(<TaskServices projectId="p1" taskId="t1" />);
    expect((await screen.findByText(/no worktree now/)).textContent).toBeTruthy();
    expect(screen.queryByTestId('workspace-services')).toBeNull();
  });
});
