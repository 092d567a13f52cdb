import { describe, expect, it } from 'vitest';
import { engineCallTitle, engineToolKind, shortPath } from './engine-tool-labels';

describe('engine tool labels', () => {
  it('shows a path inside a run’s worktree relative to it, another absolute one by its tail', () => {
    expect(shortPath('/srv/data/worktrees/run-1/src/a.ts')).toBe('src/a.ts');
    expect(shortPath('/srv/worktrees/x/data/worktrees/run-2/b.ts')).toBe('b.ts');
    expect(shortPath('/srv/data/worktrees/run-1/')).toBe('.');
    expect(shortPath('/srv/data/worktrees/run-1')).toBe('.');
    expect(shortPath('/srv/data/worktrees/')).toBe('/srv/data/worktrees/');
    expect(shortPath('/home/me/a/b/c.ts')).toBe('…/a/b/c.ts');
    expect(shortPath('C:\\Users\\me\\repo\\src\\a.ts')).toBe('…/repo/src/a.ts');
    expect(shortPath('src/a.ts')).toBe('src/a.ts');
    expect(shortPath(`src/${'x'.repeat(300)}.ts`)).toHaveLength(100);
  });

  it('reads odd inputs without throwing', () => {
    expect(engineCallTitle('Bash', {})).toBe('Running a command…');
    expect(engineCallTitle('Bash', { command: 42 })).toBe('Running a command…');
    expect(engineCallTitle('Write', { file_path: ['x'] })).toBe('Writing a file…');
    expect(engineCallTitle('file_change', { changes: 'nope' })).toBe('Changing files…');
    expect(engineCallTitle('file_change', { changes: [null, { path: 'gone.ts', kind: 'delete' }] })).toBe(
      'Deleting gone.ts…',
    );
    expect(engineCallTitle('exec_command', { command: ['git', 'status'] })).toBe('$ git status');
    expect(engineCallTitle('Bash', { command: 'x'.repeat(500) })).toHaveLength(122);
    expect(engineCallTitle('WebSearch', { query: 'vitest happy-dom' })).toBe(
      "Searching the web for 'vitest happy-dom'…",
    );
    expect(engineToolKind('constructor')).toBe('other');
    expect(engineToolKind('Glob')).toBe('search');
  });
});
