// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { create } from 'zustand';
import type { Task } from '@/contracts/tasks';
import { type StubRequest, stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { type BoardSlots, BoardSlotsProvider } from './board-slots';
import { TaskDrawer } from './task-drawer';

const task: Task = {
  id: 't-1',
  projectId: '6f1c2a9e-0000-4000-8000-000000000001',
  title: 'Add a greeting',
  description: 'greet(name)',
  category: 'feature',
  priority: 'medium',
  status: 'spec',
  position: 1000,
  subtasks: null,
  coderEngine: null,
  createdAt: '2026-11-01T10:00:00.000Z',
  updatedAt: '2026-11-01T10:00:00.000Z',
};

let requests: StubRequest[];
let stored: Task;

beforeEach(() => {
  stored = task;
  ({ requests } = stubFetch({
    'GET /api/tasks/t-1': () => stored,
    'PATCH /api/tasks/t-1': (request: StubRequest) => {
      stored = { ...stored, ...(request.body as Partial<Task>) };
      return stored;
    },
    'GET /api/tasks': { tasks: [] },
  }));
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const patches = () => requests.filter((r) => r.method === 'PATCH').map((r) => r.body as Partial<Task>);
const engineSelect = () => screen.getByTestId('task-coder-engine-select') as HTMLSelectElement;

async function openDrawer() {
  renderAt(<TaskDrawer taskId="t-1" onClose={vi.fn()} projectCoderEngine="autocoder" />);
  await screen.findByText('Add a greeting');
}

describe('the task drawer: the task’s coder engine', () => {
  it('shows the project’s engine as the task’s default, and sends the task’s own choice', async () => {
    await openDrawer();
    expect(screen.getByText('Coder engine').nextElementSibling?.textContent).toBe(
      'Project default (AutoCoder agent)',
    );
    fireEvent.click(screen.getByTestId('task-edit'));
    expect(engineSelect().value).toBe('');
    expect([...engineSelect().options].map((option) => option.textContent)).toEqual([
      'Project default (AutoCoder agent)',
      'AutoCoder agent',
      'One-shot',
      'Claude Code',
      'Codex',
    ]);
    fireEvent.change(engineSelect(), { target: { value: 'one-shot' } });
    fireEvent.click(screen.getByTestId('task-submit'));
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]).toEqual({
      title: 'Add a greeting',
      description: 'greet(name)',
      category: 'feature',
      priority: 'medium',
      coderEngine: 'one-shot',
    });
    await waitFor(() =>
      expect(screen.getByText('Coder engine').nextElementSibling?.textContent).toBe('One-shot'),
    );
  });

  it('sends null to go back to the project’s engine', async () => {
    stored = { ...task, coderEngine: 'one-shot' };
    await openDrawer();
    fireEvent.click(screen.getByTestId('task-edit'));
    expect(engineSelect().value).toBe('one-shot');
    fireEvent.change(engineSelect(), { target: { value: '' } });
    fireEvent.click(screen.getByTestId('task-submit'));
    await waitFor(() => expect(patches()).toHaveLength(1));
    expect(patches()[0]?.coderEngine).toBeNull();
  });
});

describe('the task drawer: moves while a run is active', () => {
  it('offers no move while the task’s run is active, and the moves once it is not', async () => {
    const run = create(() => ({ active: true }));
    const slots: BoardSlots = { useTaskRunActive: () => run((state) => state.active) };
    renderAt(
      <BoardSlotsProvider slots={slots}>
        <TaskDrawer taskId="t-1" onClose={vi.fn()} />
      </BoardSlotsProvider>,
    );
    await screen.findByText('Add a greeting');
    expect(screen.queryByTestId('task-move-backlog')).toBeNull();
    expect(screen.getByTestId('task-moves-locked').textContent).toContain('pipeline moves this task');

    act(() => run.setState({ active: false }));
    expect(await screen.findByTestId('task-move-backlog')).toBeTruthy();
    expect(screen.queryByTestId('task-moves-locked')).toBeNull();
  });
});
