import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gitText } from '@/server/lib/git.js';
import { branchName } from './branch-name.js';
import { isPlainBranchName, isValidBranchName } from './refs.js';

const ID = '01J9ZK3M8Q7R6S5T4V3W2X1Y0Z';

const NASTY_TITLES = [
  '',
  '   ',
  'Add login page',
  'Ünïcödé façade — naïve café',
  '日本語のタイトル',
  '🚀🔥',
  '..',
  '...',
  '.hidden',
  'ends with dot.',
  'a..b',
  'feature/with/slashes',
  '/leading/slash/',
  'double//slash',
  'spaces   everywhere   ',
  '~^:?*[\\',
  'refs/heads/main',
  'HEAD',
  '@',
  '@{upstream}',
  'name.lock',
  'dir.lock/x.lock',
  '-starts-with-dash',
  '--',
  'tab\tand\nnewline\u0000nul\u007fdel',
  'x'.repeat(500),
  'supercalifragilisticexpialidocious-and-then-some words',
  'Fix bug #42: crash when saving (again!)',
  'UPPER CASE TITLE',
  'mixed.dots.and-dashes_and_underscores',
  '\u202eright-to-left override',
  'zero\u200bwidth',
];

describe('branchName', () => {
  it('builds autocoder/<slug>-<first 8 of id>', () => {
    expect(branchName('Add login page', ID)).toBe('autocoder/add-login-page-01J9ZK3M');
    expect(branchName('Ünïcödé façade', 'abc')).toBe('autocoder/unicode-facade-abc');
  });

  it('never has an empty slug and keeps it short', () => {
    expect(branchName('', ID)).toBe('autocoder/task-01J9ZK3M');
    expect(branchName('日本語', ID)).toBe('autocoder/task-01J9ZK3M');
    for (const title of NASTY_TITLES) {
      const slug = branchName(title, ID).slice('autocoder/'.length, -'-01J9ZK3M'.length);
      expect(slug.length).toBeGreaterThan(0);
      expect(slug.length).toBeLessThanOrEqual(30);
      expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    }
  });

  it('is a valid git branch name for nasty titles and ids', async () => {
    const ids = [ID, '', '../..', 'a.lock', 'ab/cd:ef'];
    for (const title of NASTY_TITLES) {
      for (const id of ids) {
        const name = branchName(title, id);
        expect(await isValidBranchName(name), `${JSON.stringify(title)} → ${name}`).toBe(true);
      }
    }
  });

  it('the validator used above does reject bad names', async () => {
    for (const bad of ['a..b', 'x.lock', 'a b', 'a~b', '-x', 'a/.b', 'a//b', 'end.', '']) {
      expect(await isValidBranchName(bad), bad).toBe(false);
    }
  });

  it('judges plain names as git does, without git', async () => {
    const gitSays = async (name: string) =>
      gitText(['check-ref-format', '--branch', name]).then(
        () => true,
        () => false,
      );
    const token = fc.constantFrom(
      'a',
      'B',
      '7',
      '-',
      '_',
      '.',
      '/',
      '..',
      '.lock',
      'lock',
      'HEAD',
      '@',
      '{',
      ' ',
      '~',
    );
    const tricky = fc.array(token, { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
    // Names built to be plain, so that the plain path is always tried on many real names.
    const component = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9_-]{0,8}(\.[A-Za-z0-9_-]{1,3})?$/);
    const plainName = fc
      .array(component, { minLength: 1, maxLength: 3 })
      .map((parts) => parts.join('/'))
      .filter((candidate) => candidate !== 'HEAD');
    await fc.assert(
      fc.asyncProperty(fc.oneof(tricky, plainName), async (candidate) => {
        if (!isPlainBranchName(candidate)) return;
        expect(await gitSays(candidate), candidate).toBe(true);
      }),
      { numRuns: 300 },
    );
    fc.assert(fc.property(plainName, (candidate) => isPlainBranchName(candidate)));
    for (const bad of ['a..b', 'x.lock', 'a/.b', 'a//b', 'end.', '/a', 'a/', 'HEAD', '-x', 'a.lock/b']) {
      expect(isPlainBranchName(bad), bad).toBe(false);
    }
    expect(isPlainBranchName('autocoder/add-login-page-01J9ZK3M')).toBe(true);
  });
});
