// @vitest-environment happy-dom
import { act, cleanup, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredEvent } from '@/contracts/pipeline';
import { FakeEventSource } from '@/web/testing/fake-event-source';
import { stubFetch } from '@/web/testing/fetch-stub';
import { renderAt } from '@/web/testing/render';
import { runDetail, runEvents } from '@/web/testing/run-fixtures';
import { usePipelineStore } from '../stores/pipeline-store';
import { PipelinePanel } from './pipeline-panel';

const T = 'task-1';
const e = runEvents('run-1', T);
const HTML = '<img src=x onerror="alert(1)">';

const scrollIntoView = vi.fn();

beforeEach(() => {
  usePipelineStore.setState({ tasks: {}, summaries: {} });
  FakeEventSource.all = [];
  vi.stubGlobal('EventSource', FakeEventSource);
  scrollIntoView.mockClear();
  Element.prototype.scrollIntoView = scrollIntoView;
  const run = runDetail({ taskId: T, phase: 'coding', provider: 'anthropic', simulated: false });
  stubFetch({ [`GET /api/pipeline/${T}/status`]: () => ({ ...run, runId: run.id }) });
});

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** The task stream's events, as the dispatcher hands them to the store (in order, once each). */
function apply(...events: StoredEvent[]) {
  act(() => usePipelineStore.getState().applyEvents(T, events));
}

async function openPanel() {
  renderAt(<PipelinePanel taskId={T} taskStatus="building" />);
  await waitFor(() => expect(screen.getByTestId('phase-stepper').dataset.phase).toBe('coding'));
  apply(e.update(1, { phase: 'coding', provider: 'anthropic', simulated: false }), e.phase(2, 'coding'));
}

const coderLog = () => screen.getByTestId('agent-log-coder');
const toolLines = () => within(coderLog()).getAllByTestId('tool-call');
const toolLine = (callId: string) => {
  const line = toolLines().find((element) => element.dataset.callId === callId);
  if (!line) throw new Error(`no line for ${callId}`);
  return line;
};

/** A call of an external coding agent, with its own tool name and input. */
function engineCall(
  id: number,
  callId: string,
  tool: string,
  input: Record<string, unknown>,
  engine: 'claude-code' | 'codex' = 'claude-code',
): StoredEvent {
  const event = e.toolCall(id, 'coder', callId, tool, input);
  if (event.type !== 'agent-tool-call') throw new Error('not a tool call');
  return { ...event, data: { ...event.data, engine } };
}

describe('the agent timeline: calls of Claude Code and Codex', () => {
  const text = (callId: string) => within(toolLine(callId)).getByTestId('tool-call-text').textContent;
  const icon = (callId: string) => within(toolLine(callId)).getByTestId('tool-call-icon').dataset.kind;
  const badge = (callId: string) => within(toolLine(callId)).queryByTestId('tool-call-engine')?.textContent;

  it('titles each call from its input, with an icon for its tool, naming the engine once per step', async () => {
    await openPanel();
    apply(
      engineCall(3, 'c1', 'Bash', { command: 'npm test -- --run\n  src/greet.test.ts' }),
      engineCall(4, 'c2', 'Write', {
        file_path: '/srv/autocoder/data/worktrees/run-1/src/greet.ts',
        content: 'export {}',
      }),
      engineCall(5, 'c3', 'Edit', { file_path: 'src/board.ts', old_string: 'a', new_string: 'b' }),
      engineCall(6, 'c4', 'Read', { file_path: '/home/me/elsewhere/deep/dir/notes.md' }),
      engineCall(7, 'c5', 'Grep', { pattern: 'greet(', path: 'src' }),
      engineCall(8, 'c6', 'TodoWrite', { todos: [{ content: 'a' }, { content: 'b' }] }),
    );
    expect(text('c1')).toBe('$ npm test -- --run src/greet.test.ts (running)');
    expect(text('c2')).toBe('Writing src/greet.ts… (running)');
    expect(text('c3')).toBe('Editing src/board.ts… (running)');
    expect(text('c4')).toBe('Reading …/deep/dir/notes.md… (running)');
    expect(text('c5')).toBe("Searching 'greet(' in src… (running)");
    expect(text('c6')).toBe('Updating the to-do list (2 items) (running)');
    expect(['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map(icon)).toEqual([
      'terminal',
      'edit',
      'edit',
      'file',
      'search',
      'list',
    ]);
    expect(toolLine('c1').dataset.engine).toBe('claude-code');
    expect(badge('c1')).toBe('Claude Code');
    expect(['c2', 'c3', 'c4', 'c5', 'c6'].map(badge)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);

    // The result's line replaces the title; its change opens as for AutoCoder's own tools.
    apply(
      e.toolResult(9, 'coder', 'c2', 'Wrote src/greet.ts (1 lines)', {
        change: { path: 'src/greet.ts', added: 1, removed: 0, patch: '@@ -0,0 +1 @@\n+export {}\n' },
      }),
    );
    expect(text('c2')).toBe('Wrote src/greet.ts (1 lines) (done)');
    expect(within(toolLine('c2')).getByTestId('tool-call-counts').textContent).toBe('+1 −0');

    // A new step names the engine again.
    apply(
      e.usage(10, { agent: 'coder', inputTokens: 10, outputTokens: 10 }),
      engineCall(11, 'c7', 'exec_command', { command: ['bash', '-lc', 'npm run lint'] }, 'codex'),
      engineCall(
        12,
        'c8',
        'file_change',
        {
          changes: [
            { path: 'src/a.ts', kind: 'update' },
            { path: 'src/b.ts', kind: 'add' },
          ],
        },
        'codex',
      ),
      engineCall(
        13,
        'c9',
        'mcp_tool_call',
        { server: 'autocoder', tool: 'acquire_lock', arguments: {} },
        'codex',
      ),
    );
    expect(text('c7')).toBe('$ npm run lint (running)');
    expect(icon('c7')).toBe('terminal');
    expect(badge('c7')).toBe('Codex');
    expect(text('c8')).toBe('Editing src/a.ts and 1 more file… (running)');
    expect(icon('c8')).toBe('edit');
    expect(badge('c8')).toBeUndefined();
    expect(text('c9')).toBe('Calling autocoder · acquire_lock… (running)');
  });

  it('shows an agent’s inputs with HTML in them as text', async () => {
    await openPanel();
    apply(
      engineCall(3, 'c1', 'Bash', { command: `echo '${HTML}'` }),
      engineCall(4, 'c2', 'Write', { file_path: `/tmp/worktrees/r/${HTML}.ts`, content: HTML }),
      engineCall(5, 'c3', `Tool${HTML}`, { file_path: HTML }),
    );
    const log = coderLog();
    expect(log.querySelector('img')).toBeNull();
    expect(text('c1')).toContain(HTML);
    expect(text('c2')).toContain(`${HTML}.ts`);
    expect(icon('c3')).toBe('other');
  });

  it('leaves AutoCoder’s own calls without an engine badge or tool icon', async () => {
    await openPanel();
    apply(e.toolCall(3, 'coder', 'c1', 'read_file', { path: 'src/board.ts' }));
    expect(within(toolLine('c1')).queryByTestId('tool-call-engine')).toBeNull();
    expect(within(toolLine('c1')).queryByTestId('tool-call-icon')).toBeNull();
    expect(toolLine('c1').dataset.engine).toBeUndefined();
  });
});
