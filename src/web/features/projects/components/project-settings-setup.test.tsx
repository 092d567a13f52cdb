// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Project, ProjectSetupInfo } from '@/contracts/projects';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { ProjectSettingsDialog } from './project-settings-dialog';

const project: Project = {
  id: 'p-1',
  name: 'My Project',
  repoUrl: null,
  defaultBranch: 'main',
  checkCommand: null,
  checkTimeoutSeconds: 300,
  setupCommand: null,
  setupTimeoutSeconds: 600,
  taskTokenBudget: null,
  serviceEnv: {},
  sandboxAllowedHosts: null,
  coderEngine: 'autocoder',
  maxToolCalls: 60,
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
};

const MB = 1024 ** 2;
const GB = 1024 ** 3;

const entry = (key: string, bytes: number) => ({
  key: key.repeat(64),
  command: 'npm ci',
  bytes,
  paths: ['node_modules'],
  createdAt: '2026-11-01T10:00:00.000Z',
  lastUsedAt: '2026-11-02T10:00:00.000Z',
});

const SETUP: ProjectSetupInfo = {
  setupCommand: null,
  proposal: { command: 'npm ci', because: 'package-lock.json' },
  cache: {
    entries: [entry('a', 180 * MB), entry('b', 60 * MB)],
    bytes: 240 * MB,
    maxBytes: 5 * GB,
    totalMaxBytes: 20 * GB,
  },
};

let requests: StubRequest[];
let setupInfo: ProjectSetupInfo;
/** Ends the pending DELETE of the cache (the server's answer). */
let answerClear: () => void;

beforeEach(() => {
  setupInfo = SETUP;
  ({ requests } = stubFetch({
    'GET /api/engines': { engines: [] },
    'GET /api/projects/p-1/setup': () => setupInfo,
    'DELETE /api/projects/p-1/setup/cache': () =>
      new Promise<Response>((resolve) => {
        answerClear = () => {
          setupInfo = { ...setupInfo, cache: { ...setupInfo.cache, entries: [], bytes: 0 } };
          resolve(new Response(null, { status: 204 }));
        };
      }),
    'PATCH /api/projects/p-1': (request: StubRequest) => ({ ...project, ...(request.body as object) }),
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const setupCommand = () => screen.getByTestId('project-setup-command') as HTMLTextAreaElement;
const setupTimeout = () => screen.getByTestId('project-setup-timeout') as HTMLInputElement;
const status = () => screen.getByTestId('project-settings-status').textContent;
const patches = () => requests.filter((r) => r.method === 'PATCH').map((r) => r.body as Partial<Project>);

function open(shown: Project = project, onOpenChange = vi.fn()) {
  renderAt(<ProjectSettingsDialog project={shown} open onOpenChange={onOpenChange} />);
  return onOpenChange;
}

describe('the project settings: the setup of its worktrees', () => {
  it('proposes a command from the lockfiles, and Accept fills the field for the person to save', async () => {
    open();
    expect(setupCommand().value).toBe('');
    expect(setupCommand().placeholder).toBe('npm ci');
    expect(setupTimeout().value).toBe('600');
    const proposal = await screen.findByTestId('setup-proposal');
    expect(proposal.textContent).toContain('Proposed from package-lock.json: npm ci');
    expect(proposal.querySelector('code')?.textContent).toBe('npm ci');
    expect(status()).toBe('No changes');

    fireEvent.click(screen.getByTestId('setup-accept'));
    expect(setupCommand().value).toBe('npm ci');
    expect(screen.queryByTestId('setup-proposal')).toBeNull();
    expect(status()).toBe('Unsaved changes');
    // Nothing is sent (and so nothing runs) until the person saves.
    expect(patches()).toHaveLength(0);
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]).toMatchObject({ setupCommand: 'npm ci', setupTimeoutSeconds: 600 });
  });

  it('saves a setup command and its timeout, and an empty field as none', async () => {
    const onOpenChange = open();
    fireEvent.change(setupCommand(), { target: { value: 'pip install -r requirements.txt' } });
    fireEvent.change(setupTimeout(), { target: { value: '900' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(patches().at(-1)).toMatchObject({
      setupCommand: 'pip install -r requirements.txt',
      setupTimeoutSeconds: 900,
    });

    cleanup();
    open({ ...project, setupCommand: 'npm ci' });
    expect(setupCommand().value).toBe('npm ci');
    fireEvent.change(setupCommand(), { target: { value: '  ' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(patches()).toHaveLength(2));
    expect(patches().at(-1)?.setupCommand).toBeNull();
  });

  it('offers no proposal while the field holds a command', async () => {
    open({ ...project, setupCommand: 'make deps' });
    await screen.findByTestId('setup-cache');
    expect(screen.queryByTestId('setup-proposal')).toBeNull();
  });

  it('draws the proposal as text, never as markup', async () => {
    const html = '<img src=x onerror="alert(1)">';
    setupInfo = { ...SETUP, proposal: { command: html, because: html } };
    open();
    const proposal = await screen.findByTestId('setup-proposal');
    expect(proposal.textContent).toContain(html);
    expect(proposal.querySelector('img')).toBeNull();
  });

  it('shows the dependency cache; Clear sends DELETE, waits disabled, then reads the cache again', async () => {
    open();
    const cache = await screen.findByTestId('setup-cache');
    expect(cache.textContent).toContain('240 MB of 5.0 GB');
    expect(cache.textContent).toContain('2 entries');
    const clear = () => screen.getByTestId('setup-cache-clear') as HTMLButtonElement;
    expect(clear().disabled).toBe(false);

    fireEvent.click(clear());
    await waitFor(() => expect(clear().disabled).toBe(true));
    expect(requests.filter((r) => r.method === 'DELETE').map((r) => r.url)).toEqual([
      '/api/projects/p-1/setup/cache',
    ]);
    answerClear();
    await waitFor(() => expect(screen.getByTestId('setup-cache').textContent).toContain('0 B of 5.0 GB'));
    expect(screen.getByTestId('setup-cache').textContent).toContain('0 entries');
    expect(requests.filter((r) => r.url === '/api/projects/p-1/setup')).toHaveLength(2);
    // An empty cache has nothing to clear.
    expect(clear().disabled).toBe(true);
    // Clearing the cache is no change of the settings: nothing to save, the dialog stays.
    expect(status()).toBe('No changes');
    expect(patches()).toHaveLength(0);
  });

  it('reads a project from a server without the setup fields as their defaults, not as changes', () => {
    const { setupCommand: _command, setupTimeoutSeconds: _timeout, ...older } = project;
    open(older as Project);
    expect(setupCommand().value).toBe('');
    expect(setupTimeout().value).toBe('600');
    expect(status()).toBe('No changes');
  });

  it('leaves out the proposal and the cache when the server cannot tell them', async () => {
    const { fetch } = stubFetch({ 'GET /api/engines': { engines: [] } });
    open();
    await waitFor(() => expect(fetch).toHaveBeenCalledWith('/api/projects/p-1/setup', expect.anything()));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(screen.queryByTestId('setup-proposal')).toBeNull();
    expect(screen.queryByTestId('setup-cache')).toBeNull();
    expect(setupCommand()).toBeTruthy();
  });
});
