import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '@/server/lib/errors.js';
import { git, gitText } from '@/server/lib/git.js';
import { commitAll, stageAll } from './commit.js';
import { findNestedGit, nestedGitProblem } from './nested-git.js';
import { head, makeRepo, type TempRepo } from './test-repo.js';

const run = promisify(execFile);

let t: TempRepo;
beforeEach(async () => {
  t = await makeRepo();
});
afterEach(async () => t.cleanup());

describe('findNestedGit', () => {
  it('finds a nested .git directory, gitfile or link anywhere but the top level, following no link', async () => {
    await mkdir(path.join(t.repo, 'sub', '.git'), { recursive: true });
    await mkdir(path.join(t.repo, 'deep', 'er', 'x'), { recursive: true });
    await writeFile(path.join(t.repo, 'deep', 'er', '.git'), 'gitdir: /elsewhere\n');
    await mkdir(path.join(t.repo, 'node_modules', 'pkg'), { recursive: true });
    await symlink('/tmp', path.join(t.repo, 'node_modules', 'pkg', '.git'));
    // A link to a directory that holds a .git is an entry, not a way in.
    await mkdir(path.join(t.root, 'outside', '.git'), { recursive: true });
    await symlink(path.join(t.root, 'outside'), path.join(t.repo, 'linked'));
    const scan = await findNestedGit(t.repo);
    expect(scan.incomplete).toBeNull();
    expect([...scan.found].sort()).toEqual(['deep/er/.git', 'node_modules/pkg/.git', 'sub/.git']);
  });

  it('finds nothing in a plain checkout (its own .git is not walked)', async () => {
    await mkdir(path.join(t.repo, 'src', 'lib'), { recursive: true });
    await writeFile(path.join(t.repo, 'src', 'lib', 'a.ts'), 'export {};\n');
    expect(await findNestedGit(t.repo)).toEqual({ found: [], incomplete: null });
  });

  it('stops after the entries it may look at, and says the tree was not seen whole', async () => {
    await mkdir(path.join(t.repo, 'many'));
    for (let i = 0; i < 20; i++) await writeFile(path.join(t.repo, 'many', `f${i}`), '');
    const scan = await findNestedGit(t.repo, { maxEntries: 10 });
    expect(scan.incomplete).toBe('the worktree has more than 10 entries');
    expect(nestedGitProblem(scan, 'the check left')).toMatch(/could not make sure .* more than 10 entries/);
  });

  it('names what it found in one sentence', () => {
    expect(nestedGitProblem({ found: ['sub/.git'], incomplete: null }, 'the check left')).toBe(
      'the check left a nested git repository at sub/.git; AutoCoder does not commit or run git on it',
    );
    expect(nestedGitProblem({ found: [], incomplete: null }, 'the check left')).toBeNull();
  });
});

/**
 * A worktree with a gitlink `sub` whose directory holds a repository at the gitlink's commit, with
 * a filter driver of its own: the `git status` git runs inside it would run the driver.
 */
async function populatedGitlink(): Promise<{ marker: string }> {
  const marker = path.join(t.root, 'marker');
  const filter = path.join(t.root, 'filter.sh');
  await writeFile(filter, `#!/bin/sh\necho "filter $*" >> '${marker}'\ncat\n`);
  await chmod(filter, 0o755);
  const commit = await head(t.repo);
  await git(['update-index', '--add', '--cacheinfo', `160000,${commit},sub`], { cwd: t.repo });
  // Committed by a plain git: the server's ignores submodules, and would see nothing to commit.
  await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', 'commit', '--quiet', '-m', 'gitlink'], {
    cwd: t.repo,
  });
  const sub = path.join(t.repo, 'sub');
  await run('git', ['clone', '--quiet', '--no-checkout', t.repo, sub]);
  await run('git', ['-c', 'advice.detachedHead=false', 'checkout', '--quiet', commit], { cwd: sub });
  await writeFile(path.join(sub, '.git', 'info', 'attributes'), '* filter=evil\n');
  await run('git', ['config', 'filter.evil.clean', filter], { cwd: sub });
  // Its file's times change, so that the status inside has to read it (through the filter).
  await utimes(path.join(sub, 'README.md'), new Date(), new Date(Date.now() + 5000));
  return { marker };
}

const ran = (marker: string) => readFile(marker, 'utf8').catch(() => '');

describe('committing a worktree that holds a nested repository', () => {
  it('(a plain git add -A runs the nested repository filter: the fixture can tell)', async () => {
    const { marker } = await populatedGitlink();
    await run('git', ['add', '-A'], { cwd: t.repo });
    expect(await ran(marker)).toContain('filter');
  });

  it('is refused with NESTED_REPOSITORY naming the path, and nothing is committed', async () => {
    const { marker } = await populatedGitlink();
    const before = await head(t.repo);
    await writeFile(path.join(t.repo, 'change.txt'), 'a change of the same step\n');
    const error = await commitAll(t.repo, 'step').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'NESTED_REPOSITORY', details: { paths: ['sub/.git'] } });
    expect((error as AppError).message).toContain('sub/.git');
    expect(await head(t.repo)).toBe(before);
    expect(await gitText(['ls-files', 'change.txt'], { cwd: t.repo })).toBe('');
    expect(await ran(marker)).toBe('');
  });

  it('refuses an untracked nested repository too (git would add it as an embedded repository)', async () => {
    await run('git', ['init', '--quiet', path.join(t.repo, 'vendor', 'lib')]);
    const error = await commitAll(t.repo, 'step').catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'NESTED_REPOSITORY', details: { paths: ['vendor/lib/.git'] } });
  });

  it('stages around gitlinks, so a repository made after the scan is not looked into', async () => {
    const { marker } = await populatedGitlink();
    await writeFile(path.join(t.repo, 'change.txt'), 'staged\n');
    await stageAll(t.repo);
    expect(await ran(marker)).toBe('');
    expect(await gitText(['diff', '--cached', '--name-only'], { cwd: t.repo })).toBe('change.txt\n');
  });
});
