import { describe, expect, it } from 'vitest';
import {
  asBuiltInCall,
  claudeToolResult,
  insideWorktree,
  patchCounts,
  worktreeRelative,
} from './engine-timeline.js';

const WT = '/data/worktrees/run-1';

describe('Claude Code calls on the timeline', () => {
  it('counts an overwrite from the patch Claude Code reports, and a new file as all added', () => {
    const report = { structuredPatch: [{ lines: [' a', '-b', '+B', '+c'] }] };
    expect(patchCounts(report)).toEqual({ added: 2, removed: 1 });
    const overwrite = claudeToolResult(
      WT,
      'Write',
      { file_path: `${WT}/src/a.ts`, content: 'a\nB\nc\n' },
      true,
      'ok',
      report,
    );
    expect(overwrite).toMatchObject({
      ok: true,
      summary: 'Wrote src/a.ts +2 −1',
      changed: { path: 'src/a.ts', added: 2, removed: 1 },
    });
    expect(asBuiltInCall('Write', { content: 'a\nB\nc\n' }, report)).toEqual({
      tool: 'edit_file',
      input: { oldText: 'b', newText: 'B\nc' },
    });
    const created = claudeToolResult(WT, 'Write', { file_path: 'src/new.ts', content: 'x\ny\n' }, true, 'ok');
    expect(created).toMatchObject({ summary: 'Wrote src/new.ts +2 −0', changed: { added: 2, removed: 0 } });
  });

  it('names a shell call by its description, and a failure by its first line', () => {
    const ran = claudeToolResult(
      WT,
      'Bash',
      { command: 'for f in a; do\n  echo $f\ndone', description: 'List the files' },
      true,
      'a',
    );
    expect(ran.summary).toBe('Ran List the files');
    const denied = claudeToolResult(
      WT,
      'Edit',
      { file_path: 'src/held.ts' },
      false,
      "'src/held.ts' is being written by 'Alice'\nmore",
    );
    expect(denied).toMatchObject({
      ok: false,
      summary: "Edit src/held.ts — 'src/held.ts' is being written by 'Alice'",
    });
  });

  it('keeps paths inside the worktree and out of .git', () => {
    expect(worktreeRelative(WT, `${WT}/src/a.ts`)).toBe('src/a.ts');
    expect(worktreeRelative(WT, 'src/../b.ts')).toBe('b.ts');
    for (const outside of ['../other/x.ts', '/etc/passwd', '.git/config', '.git']) {
      expect(insideWorktree(worktreeRelative(WT, outside) ?? '')).toBe(false);
    }
    expect(insideWorktree('src/.gitkeep')).toBe(true);
  });
});

describe('Codex calls on the timeline', () => {
  it('shows a command without the shell Codex wraps it in', async () => {
    const { unwrapShell, resultOf } = await import('./codex-events.js');
    expect(unwrapShell(`/usr/bin/bash -lc "npm test"`)).toBe('npm test');
    expect(unwrapShell('ls -la')).toBe('ls -la');
    const result = resultOf({
      type: 'command_execution',
      command: `/bin/bash -lc 'npm test'`,
      exit_code: 1,
      status: 'failed',
      aggregated_output: 'x',
    });
    expect(result).toMatchObject({ ok: false, summary: 'Ran npm test — exit 1' });
  });
});
