import { describe, expect, it } from 'vitest';
import { resolveConflictMarkers } from './agents.js';

describe('the simulated coder’s conflict resolution', () => {
  it('keeps both sides of every conflict, ours first, shared lines once, and no marker', () => {
    const marked = [
      'top',
      '<<<<<<< HEAD',
      'export const a = 1;',
      'shared',
      '=======',
      'export const b = 2;',
      'shared',
      '>>>>>>> main',
      'middle',
      '<<<<<<< HEAD',
      'x',
      '||||||| base',
      'old',
      '=======',
      'y',
      '>>>>>>> main',
      '',
    ].join('\n');
    expect(resolveConflictMarkers(marked)).toBe(
      ['top', 'export const a = 1;', 'shared', 'export const b = 2;', 'middle', 'x', 'y', ''].join('\n'),
    );
  });

  it('leaves a file without markers as it is', () => {
    expect(resolveConflictMarkers('a\n=======\nb\n')).toBe('a\n=======\nb\n');
  });
});
