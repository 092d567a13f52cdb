import { describe, expect, it } from 'vitest';
import { pathSyntaxProblem, safeRelativePath } from './confine.js';

describe('safeRelativePath', () => {
  it('gives the canonical spelling of a safe path', () => {
    expect(safeRelativePath('src/a.ts')).toBe('src/a.ts');
    expect(safeRelativePath('./src//a.ts')).toBe('src/a.ts');
    expect(safeRelativePath('src/./a.ts')).toBe('src/a.ts');
    expect(safeRelativePath('.github/workflows/ci.yml')).toBe('.github/workflows/ci.yml');
    expect(safeRelativePath('docs/.gitignore')).toBe('docs/.gitignore');
  });

  it('refuses .git in any segment and any case, and the names filesystems fold into it', () => {
    for (const bad of [
      '.git/config',
      'src/.git/config',
      'a/b/.GIT/HEAD',
      'vendor/lib/.Git',
      '.git./config',
      'src/.git /x',
      'GIT~1/config',
      'src/.g\u200cit/config',
    ]) {
      expect(safeRelativePath(bad), bad).toBeNull();
      expect(pathSyntaxProblem(bad), bad).toBe('touches .git');
    }
  });

  it('refuses paths that leave the tree or are not plain relative file paths', () => {
    for (const bad of ['', '../x', 'a/../../x', '/etc/passwd', 'C:/x', 'a\\b', 'a\0b', 'a\u0007b', 'src/']) {
      expect(safeRelativePath(bad), JSON.stringify(bad)).toBeNull();
    }
  });
});
