// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineInfo } from '@/contracts/engines';
import type { Project } from '@/contracts/projects';
import { DEFAULT_RUN_SETTINGS, useRunSettingsStore } from '@/web/lib/run-settings';
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
  taskTokenBudget: 200_000,
  serviceEnv: {},
  sandboxAllowedHosts: null,
  coderEngine: 'autocoder',
  maxToolCalls: 60,
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
};

const ENGINES: EngineInfo[] = [
  { id: 'autocoder', label: 'AutoCoder agent', builtIn: true, available: true, endpoint: 'any' },
  { id: 'one-shot', label: 'One-shot', builtIn: true, available: true, endpoint: 'any' },
  {
    id: 'claude-code',
    label: 'Claude Code',
    builtIn: false,
    available: true,
    version: '2.0.1',
    endpoint: 'anthropic',
  },
  {
    id: 'codex',
    label: 'Codex',
    builtIn: false,
    available: false,
    reason: 'The codex CLI is not installed on this server.',
    install: 'npm install -g @openai/codex',
    endpoint: 'openai-responses',
  },
];

let requests: StubRequest[];

beforeEach(() => {
  useRunSettingsStore.setState({ settings: DEFAULT_RUN_SETTINGS });
  ({ requests } = stubFetch({
    'GET /api/engines': { engines: ENGINES },
    'PATCH /api/projects/p-1': (request: StubRequest) => {
      const { taskTokenBudget } = request.body as { taskTokenBudget: unknown };
      if (
        typeof taskTokenBudget === 'number' &&
        (taskTokenBudget < 1 || !Number.isInteger(taskTokenBudget))
      ) {
        return new Response(
          JSON.stringify({
            error: 'VALIDATION_ERROR',
            message: 'Invalid input',
            fields: { taskTokenBudget: ['The token budget must be a whole number of tokens'] },
          }),
          { status: 400, headers: { 'content-type': 'application/json' } },
        );
      }
      return { ...project, ...(request.body as object) };
    },
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const budget = () => screen.getByTestId('project-token-budget') as HTMLInputElement;
const patches = () => requests.filter((r) => r.method === 'PATCH').map((r) => r.body as Partial<Project>);

function open(onOpenChange = vi.fn()) {
  renderAt(<ProjectSettingsDialog project={project} open onOpenChange={onOpenChange} />);
  return onOpenChange;
}

describe('the project settings: token budget per task', () => {
  it('shows the budget, saves a new one as a number, and an empty field as no budget', async () => {
    const onOpenChange = open();
    expect(budget().value).toBe('200000');
    fireEvent.change(budget(), { target: { value: '50000' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(patches().at(-1)).toMatchObject({ taskTokenBudget: 50_000, checkTimeoutSeconds: 300 });

    cleanup();
    open();
    fireEvent.change(budget(), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(patches()).toHaveLength(2));
    expect(patches().at(-1)?.taskTokenBudget).toBeNull();
  });

  it("shows the server's refusal under the field and keeps the dialog open", async () => {
    const onOpenChange = open();
    fireEvent.change(budget(), { target: { value: '2.5' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    expect(await screen.findByText('The token budget must be a whole number of tokens')).toBeTruthy();
    expect(budget().getAttribute('aria-invalid')).toBe('true');
    expect(patches().at(-1)?.taskTokenBudget).toBe(2.5);
    expect(onOpenChange).not.toHaveBeenCalled();
  });
});

describe("the project settings: its sandboxes' network", () => {
  it("keeps the server's list by default, and sends a project's own list when asked", async () => {
    open();
    const serverList = screen.getByTestId('project-network-server-list') as HTMLInputElement;
    expect(serverList.checked).toBe(true);
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]?.sandboxAllowedHosts).toBeNull();
    cleanup();

    open();
    fireEvent.click(screen.getByTestId('project-network-server-list'));
    fireEvent.change(screen.getByTestId('project-network-hosts'), {
      target: { value: 'registry.npmjs.org\n*.pythonhosted.org' },
    });
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(patches()).toHaveLength(2));
    expect(patches()[1]?.sandboxAllowedHosts).toEqual(['registry.npmjs.org', '*.pythonhosted.org']);
  });

  it('sends an empty list (no network) when the project lists no host', async () => {
    open();
    fireEvent.click(screen.getByTestId('project-network-server-list'));
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]?.sandboxAllowedHosts).toEqual([]);
  });
});

describe('the project settings: how the coder works', () => {
  const engine = () => screen.getByTestId('project-coder-engine') as HTMLSelectElement;
  const maxToolCalls = () => screen.getByTestId('project-max-tool-calls') as HTMLInputElement;
  const status = () => screen.getByTestId('project-settings-status').textContent;

  it('shows the engine and the tool-call limit as saved, with no unsaved changes after load', () => {
    open();
    expect(engine().value).toBe('autocoder');
    expect([...engine().options].map((option) => option.textContent)).toEqual([
      'AutoCoder agent (reads, searches, edits, runs the check)',
      'One-shot (whole files in one answer)',
      'Claude Code (in the sandbox)',
      'Codex (in the sandbox)',
    ]);
    expect(maxToolCalls().value).toBe('60');
    expect(status()).toBe('No changes');
    fireEvent.change(engine(), { target: { value: 'one-shot' } });
    expect(status()).toBe('Unsaved changes');
    fireEvent.change(engine(), { target: { value: 'autocoder' } });
    expect(status()).toBe('No changes');
  });

  it('reads a project from a server without the new fields as their defaults, not as changes', () => {
    const { coderEngine: _engine, maxToolCalls: _max, ...older } = project;
    renderAt(<ProjectSettingsDialog project={older as Project} open onOpenChange={vi.fn()} />);
    expect(engine().value).toBe('autocoder');
    expect(maxToolCalls().value).toBe('60');
    expect(status()).toBe('No changes');
  });

  it('saves the engine and the tool-call limit with the other settings', async () => {
    const onOpenChange = open();
    fireEvent.change(engine(), { target: { value: 'one-shot' } });
    fireEvent.change(maxToolCalls(), { target: { value: '120' } });
    expect(status()).toBe('Unsaved changes');
    fireEvent.click(screen.getByTestId('project-submit'));
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false));
    expect(patches().at(-1)).toMatchObject({
      coderEngine: 'one-shot',
      maxToolCalls: 120,
      taskTokenBudget: 200_000,
    });
  });

  it('refuses a tool-call limit out of the contract’s bounds before sending it', () => {
    open();
    fireEvent.change(maxToolCalls(), { target: { value: '0' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    expect(screen.getByText('The tool-call limit must be at least 1')).toBeTruthy();
    expect(maxToolCalls().getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(maxToolCalls(), { target: { value: '12.5' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    expect(screen.getByText('The tool-call limit must be a whole number')).toBeTruthy();
    fireEvent.change(maxToolCalls(), { target: { value: '501' } });
    fireEvent.click(screen.getByTestId('project-submit'));
    expect(screen.getByText('The tool-call limit must be at most 500')).toBeTruthy();
    expect(patches()).toHaveLength(0);
  });
});

describe('the project settings: engines this server can run', () => {
  const engine = () => screen.getByTestId('project-coder-engine') as HTMLSelectElement;
  const option = (id: string) => [...engine().options].find((item) => item.value === id);

  it('offers an engine that is not installed disabled, and tells why and how to install it', async () => {
    renderAt(
      <ProjectSettingsDialog project={{ ...project, coderEngine: 'codex' }} open onOpenChange={vi.fn()} />,
    );
    await waitFor(() => expect(option('codex')?.disabled).toBe(true));
    expect(option('codex')?.textContent).toBe('Codex (in the sandbox) (not installed)');
    expect(option('claude-code')?.disabled).toBe(false);
    expect(option('autocoder')?.disabled).toBe(false);
    const note = screen.getByTestId('engine-note');
    expect(note.textContent).toContain('The codex CLI is not installed on this server.');
    expect(note.querySelector('code')?.textContent).toBe('npm install -g @openai/codex');
  });

  it('says Claude Code needs the Anthropic provider when the runs use an OpenAI-compatible endpoint', async () => {
    useRunSettingsStore.setState({ settings: { ...DEFAULT_RUN_SETTINGS, provider: 'openai' } });
    open();
    await waitFor(() => expect(option('codex')?.disabled).toBe(true));
    expect(screen.queryByTestId('engine-note')).toBeNull();
    fireEvent.change(engine(), { target: { value: 'claude-code' } });
    const note = screen.getByTestId('engine-note');
    expect(note.dataset.problem).toBe('provider');
    expect(note.textContent).toContain('Claude Code needs the Anthropic provider');
    expect(note.textContent).toContain('OpenAI-compatible');
    fireEvent.change(engine(), { target: { value: 'autocoder' } });
    expect(screen.queryByTestId('engine-note')).toBeNull();
  });

  it('draws the server’s reason as text, never as markup', async () => {
    const html = '<img src=x onerror="alert(1)">';
    stubFetch({
      'GET /api/engines': {
        engines: ENGINES.map((item) => (item.id === 'codex' ? { ...item, reason: html } : item)),
      },
    });
    renderAt(
      <ProjectSettingsDialog project={{ ...project, coderEngine: 'codex' }} open onOpenChange={vi.fn()} />,
    );
    const note = await screen.findByTestId('engine-note');
    expect(note.textContent).toContain(html);
    expect(note.querySelector('img')).toBeNull();
  });

  it('offers every engine when the server does not say which it can run', async () => {
    const { fetch } = stubFetch({});
    open();
    await waitFor(() => expect(fetch).toHaveBeenCalledWith('/api/engines', expect.anything()));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect([...engine().options].map((item) => item.disabled)).toEqual([false, false, false, false]);
    fireEvent.change(engine(), { target: { value: 'codex' } });
    expect(screen.queryByTestId('engine-note')).toBeNull();
  });
});
