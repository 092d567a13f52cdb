// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EngineInfo } from '@/contracts/engines';
import type { CoderEngineId } from '@/contracts/projects';
import { DEFAULT_RUN_SETTINGS, useRunSettingsStore } from '@/web/lib/run-settings';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { TaskForm } from './task-form';

const ENGINES: EngineInfo[] = [
  { id: 'autocoder', label: 'AutoCoder agent', builtIn: true, available: true, endpoint: 'any' },
  { id: 'one-shot', label: 'One-shot', builtIn: true, available: true, endpoint: 'any' },
  {
    id: 'claude-code',
    label: 'Claude Code',
    builtIn: false,
    available: false,
    reason: 'Claude Code is not installed on this server.',
    install: 'npm install -g @anthropic-ai/claude-code',
    endpoint: 'anthropic',
  },
  { id: 'codex', label: 'Codex', builtIn: false, available: true, endpoint: 'openai-responses' },
];

beforeEach(() => {
  useRunSettingsStore.setState({ settings: DEFAULT_RUN_SETTINGS });
  stubFetch({ 'GET /api/engines': { engines: ENGINES } });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const select = () => screen.getByTestId('task-coder-engine-select') as HTMLSelectElement;
const option = (id: string) => [...select().options].find((item) => item.value === id);

function renderForm(
  projectDefault: CoderEngineId | null = 'autocoder',
  coderEngine: CoderEngineId | null = null,
) {
  const onSubmit = vi.fn();
  renderAt(
    <TaskForm
      initialValues={{ title: 'Add a greeting', coderEngine }}
      showColumn={false}
      submitLabel="Save changes"
      pending={false}
      error={null}
      onSubmit={onSubmit}
      onCancel={vi.fn()}
      engine={{ projectDefault }}
    />,
  );
  return onSubmit;
}

describe('the task form: the task’s coder engine', () => {
  it('shows an engine the server cannot run disabled, with its reason when it is the task’s', async () => {
    renderForm('autocoder', 'claude-code');
    expect(screen.getByLabelText('Coder engine')).toBe(select());
    await waitFor(() => expect(option('claude-code')?.disabled).toBe(true));
    expect(option('claude-code')?.textContent).toBe('Claude Code (not installed)');
    expect(option('codex')?.disabled).toBe(false);
    const note = screen.getByTestId('engine-note');
    expect(note.dataset.problem).toBe('unavailable');
    expect(note.textContent).toContain('Claude Code is not installed on this server.');
    expect(note.textContent).toContain('npm install -g @anthropic-ai/claude-code');
  });

  it('says which provider an engine needs when the run settings’ provider does not fit it', async () => {
    useRunSettingsStore.setState({ settings: { ...DEFAULT_RUN_SETTINGS, provider: 'anthropic' } });
    renderForm();
    await waitFor(() => expect(option('claude-code')?.disabled).toBe(true));
    expect(screen.queryByTestId('engine-note')).toBeNull();
    fireEvent.change(select(), { target: { value: 'codex' } });
    const note = screen.getByTestId('engine-note');
    expect(note.dataset.problem).toBe('provider');
    expect(note.textContent).toContain('Codex needs an OpenAI-compatible endpoint with the Responses API');
    fireEvent.change(select(), { target: { value: '' } });
    expect(screen.queryByTestId('engine-note')).toBeNull();
  });

  it('tells about the project’s engine when the task keeps the project default', async () => {
    useRunSettingsStore.setState({ settings: { ...DEFAULT_RUN_SETTINGS, provider: 'openai' } });
    renderForm('claude-code');
    const note = await screen.findByTestId('engine-note');
    expect(note.textContent).toContain('Claude Code');
  });

  it('shows Claude Code’s note while the provider is OpenAI, even before the server answers', async () => {
    useRunSettingsStore.setState({ settings: { ...DEFAULT_RUN_SETTINGS, provider: 'openai' } });
    stubFetch({});
    renderForm();
    fireEvent.change(select(), { target: { value: 'claude-code' } });
    const note = screen.getByTestId('engine-note');
    expect(note.textContent).toContain('Claude Code needs the Anthropic provider');
    expect(note.textContent).toContain('OpenAI-compatible');
  });
});
