// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
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
/** The coder's timeline as [kind, text] lines, in the order drawn. */
const lines = () =>
  within(coderLog())
    .getAllByRole('listitem')
    .map((item) => [item.dataset.kind, item.textContent?.trim()]);
const toolLines = () => within(coderLog()).getAllByTestId('tool-call');
const toolLine = (callId: string) => {
  const line = toolLines().find((element) => element.dataset.callId === callId);
  if (!line) throw new Error(`no line for ${callId}`);
  return line;
};

describe('the agent timeline', () => {
  it('shows prose and one line per tool call in stream order, each pending until its result', async () => {
    await openPanel();
    apply(
      e.log(3, 'coder', 'I will look at the board first.\n'),
      e.toolCall(4, 'coder', 'c1', 'read_file', { path: 'src/board.ts', startLine: 1, endLine: 200 }),
    );
    expect(lines()).toEqual([
      ['prose', 'I will look at the board first.'],
      ['tool', 'Reading src/board.ts lines 1–200… (running)'],
    ]);
    expect(toolLine('c1').dataset.state).toBe('pending');

    apply(
      e.toolResult(5, 'coder', 'c1', 'Read src/board.ts lines 1–200'),
      e.log(6, 'coder', 'Now the search.'),
      e.toolCall(7, 'coder', 'c2', 'search', { pattern: 'parseDate(' }),
      e.toolResult(8, 'coder', 'c2', "search failed: 'parseDate(' is not a valid regular expression", {
        ok: false,
      }),
    );
    expect(lines()).toEqual([
      ['prose', 'I will look at the board first.'],
      ['tool', 'Read src/board.ts lines 1–200 (done)'],
      ['prose', 'Now the search.'],
      ['tool', "search failed: 'parseDate(' is not a valid regular expression (failed)"],
    ]);
    expect(toolLine('c1').dataset.state).toBe('ok');
    expect(toolLine('c2').dataset.state).toBe('failed');
    expect(within(toolLine('c2')).getByTestId('tool-call-text').className).toContain('text-red-300');
  });

  it('opens an edit’s patch as a diff, added and removed lines told apart', async () => {
    await openPanel();
    apply(
      e.toolCall(3, 'coder', 'c1', 'edit_file', { path: 'src/greet.ts', oldText: 'hi', newText: 'hello' }),
    );
    expect(within(toolLine('c1')).getByTestId('tool-call-text').textContent).toContain(
      'Editing src/greet.ts…',
    );
    apply(
      e.toolResult(4, 'coder', 'c1', 'Edited src/greet.ts +1 −1', {
        change: {
          path: 'src/greet.ts',
          added: 1,
          removed: 1,
          patch:
            "--- a/src/greet.ts\n+++ b/src/greet.ts\n@@ -1,2 +1,2 @@\n-const hi = 'hi';\n+const hi = 'hello';\n export { hi };\n",
        },
      }),
    );
    const line = toolLine('c1');
    expect(within(line).getByTestId('tool-call-counts').textContent).toBe('+1 −1');
    expect(within(line).queryByTestId('tool-patch')).toBeNull();
    const toggle = within(line).getByTestId('tool-call-diff-toggle');
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    const patch = within(line).getByTestId('tool-patch');
    const kinds = [...patch.children].map((row) => [(row as HTMLElement).dataset.kind, row.textContent]);
    expect(kinds).toEqual([
      ['header', '--- a/src/greet.ts'],
      ['header', '+++ b/src/greet.ts'],
      ['hunk', '@@ -1,2 +1,2 @@'],
      ['del', "-const hi = 'hi';"],
      ['add', "+const hi = 'hello';"],
      ['context', ' export { hi };'],
    ]);
    expect((patch.children[4] as HTMLElement).className).toContain('text-emerald-300');
    expect((patch.children[3] as HTMLElement).className).toContain('text-red-300');
  });

  it('leads a run_check line to its own check in the check log', async () => {
    await openPanel();
    apply(
      e.toolCall(3, 'coder', 'c1', 'run_check'),
      e.checkLog(4, 'FAIL greet.test.ts\n', 'stderr'),
      e.checkResult(5, { exitCode: 1 }),
      e.toolResult(6, 'coder', 'c1', 'Ran the check — failed, exit 1', {
        check: { passed: false, exitCode: 1 },
      }),
      e.toolCall(7, 'coder', 'c2', 'finish', { summary: 'Fixed the greeting.' }),
      e.toolResult(8, 'coder', 'c2', 'Finished'),
      // The pipeline's own check after the step: the latest, open at first.
      e.checkLog(9, 'all green\n'),
      e.checkResult(10, { exitCode: 0 }),
    );
    const line = toolLine('c1');
    expect(within(line).getByTestId('tool-call-text').textContent).toContain(
      'Ran the check — failed, exit 1',
    );
    expect(within(line).getByTestId('tool-call-check').textContent).toBe('failed, exit 1');
    expect(within(toolLine('c2')).getByTestId('tool-call-finish').textContent).toBe('Fixed the greeting.');

    const checks = screen.getAllByTestId('check-run');
    const firstToggle = within(checks[0]!).getByRole('button', { name: /Check 1/ });
    expect(firstToggle.getAttribute('aria-expanded')).toBe('false');
    // The reader folded the check log away meanwhile: the link opens it again.
    fireEvent.click(screen.getByTestId('check-log-toggle'));
    expect(screen.queryAllByTestId('check-run')).toHaveLength(0);

    fireEvent.click(within(line).getByTestId('tool-call-show-check'));
    const shown = screen.getAllByTestId('check-run')[0]!;
    expect(
      within(shown)
        .getByRole('button', { name: /Check 1/ })
        .getAttribute('aria-expanded'),
    ).toBe('true');
    expect(shown.dataset.focused).toBe('true');
    expect(within(shown).getByTestId('check-output').textContent).toBe('FAIL greet.test.ts\n');
    expect(scrollIntoView).toHaveBeenCalled();
    expect(within(line).getByTestId('tool-call-show-check').textContent).toContain('Check 1');
  });

  it('shows agent text with HTML in it as text, in prose, summaries and patches', async () => {
    await openPanel();
    apply(
      e.log(3, 'coder', `Prose ${HTML}\n`),
      e.toolCall(4, 'coder', 'c1', 'write_file', { path: `x${HTML}.html`, content: HTML }),
      e.toolResult(5, 'coder', 'c1', `Wrote x${HTML}.html (1 line)`, {
        change: { path: `x${HTML}.html`, added: 1, removed: 0, patch: `@@ -0,0 +1 @@\n+${HTML}\n` },
      }),
    );
    fireEvent.click(within(toolLine('c1')).getByTestId('tool-call-diff-toggle'));
    const log = coderLog();
    expect(log.querySelector('img')).toBeNull();
    expect(log.textContent).toContain(`Prose ${HTML}`);
    expect(log.textContent).toContain(`Wrote x${HTML}.html (1 line)`);
    expect(within(log).getByTestId('tool-patch').textContent).toContain(`+${HTML}`);
  });

  it('folds a ```json answer into a readable summary, the JSON pretty-printed on demand', async () => {
    await openPanel();
    const answer = {
      files: [
        { filePath: 'src/a.ts', language: 'typescript', content: 'export const a = 1;\n', action: 'modify' },
        { filePath: 'src/b.ts', language: 'typescript', content: HTML, action: 'create' },
        { filePath: 'src/c.ts', language: 'typescript', content: '', action: 'delete' },
      ],
    };
    apply(e.log(3, 'coder', 'Here are the files.\n```json\n{"files": [{"filePath": "src/a.ts"'));
    expect(within(coderLog()).getByTestId('json-answer-summary').textContent).toMatch(
      /^Writing the answer… \(\d+ characters\)$/,
    );
    const rest = JSON.stringify(answer).slice('{"files":[{"filePath":"src/a.ts"'.length);
    apply(e.log(4, 'coder', `${rest}\n\`\`\`\nDone.`));

    const log = coderLog();
    expect(within(log).getByTestId('json-answer-summary').textContent).toBe(
      'Answer: 3 files — src/a.ts (modify), src/b.ts (create), src/c.ts (delete)',
    );
    expect(log.textContent).not.toContain('"filePath"');
    expect(log.textContent).toContain('Here are the files.');
    expect(log.textContent).toContain('Done.');

    fireEvent.click(within(log).getByRole('button', { name: /Answer: 3 files/ }));
    const body = within(log).getByTestId('json-answer-body');
    expect(body.textContent).toBe(JSON.stringify(answer, null, 2));
    expect(log.querySelector('img')).toBeNull();
  });

  it('shows each step’s tool calls, turns and cached tokens, and the run’s totals', async () => {
    await openPanel();
    apply(
      e.toolCall(3, 'coder', 'c1', 'list_files', { path: 'src' }),
      e.toolResult(4, 'coder', 'c1', 'Listed 12 files in src'),
      e.usage(5, {
        agent: 'coder',
        inputTokens: 45_100,
        outputTokens: 2_300,
        cacheReadTokens: 40_000,
        toolCalls: 12,
        turns: 5,
        costUsd: 0.04,
        durationMs: 38_200,
      }),
    );
    expect(within(coderLog()).getByTestId('step-usage').textContent).toBe(
      'Step done · 12 tool calls · 5 turns · 45,100 in (40,000 cached) · 2,300 out · $0.04 est. · 38.2 s',
    );
    expect(screen.getByTestId('run-cached-tokens').textContent).toContain('(40,000 cached)');
    expect(screen.getByTestId('run-tool-calls').textContent).toContain('1 tool call');
  });
});
