import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GitError, git, gitText } from './git.js';
import { NO_DIFF_DRIVERS } from './git-hardening.js';

const run = promisify(execFile);

let root: string;
let repo: string;
let marker: string;

/** A program that notes each run in the marker file. */
async function tattler(name: string): Promise<string> {
  const file = path.join(root, name);
  await writeFile(file, `#!/bin/sh\necho "${name} $*" >> '${marker}'\nexit 0\n`);
  await chmod(file, 0o755);
  return file;
}

const ran = () => readFile(marker, 'utf8').catch(() => '');

/** Writes `key value` pairs into the repository's own .git/config, as a hostile tree's owner would. */
async function setConfig(pairs: Record<string, string>) {
  for (const [key, value] of Object.entries(pairs)) {
    await run('git', ['config', key, value], { cwd: repo });
  }
}

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'autocoder-git-hardening-'));
  repo = path.join(root, 'repo');
  marker = path.join(root, 'marker');
  await git(['init', '--quiet', '--initial-branch=main', repo]);
  await writeFile(path.join(repo, 'a.txt'), 'a\n');
  await git(['add', '-A'], { cwd: repo });
  await git(['commit', '--quiet', '-m', 'a'], { cwd: repo });
  const hooks = path.join(root, 'hooks');
  await mkdir(hooks);
  for (const hook of [
    'pre-commit',
    'commit-msg',
    'post-commit',
    'post-index-change',
    'post-checkout',
    'reference-transaction',
  ]) {
    await writeFile(path.join(hooks, hook), `#!/bin/sh\necho "hook ${hook}" >> '${marker}'\n`);
    await chmod(path.join(hooks, hook), 0o755);
  }
  await setConfig({
    'core.fsmonitor': await tattler('fsmonitor'),
    'core.hooksPath': hooks,
    'core.pager': await tattler('pager'),
    'pager.log': await tattler('pager-log'),
    'core.editor': await tattler('editor'),
    'sequence.editor': await tattler('sequence-editor'),
    'commit.gpgSign': 'true',
    'gpg.program': await tattler('gpg'),
    'diff.external': await tattler('external-diff'),
    'diff.tattle.textconv': await tattler('textconv'),
    'core.alternateRefsCommand': await tattler('alternate-refs'),
  });
  await writeFile(path.join(repo, '.gitattributes'), '*.txt diff=tattle\n');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('a repository whose own config names programs (fsmonitor, hooks, pager, editor, signing, diff drivers)', () => {
  it('(a plain git runs them: the fixture can tell)', async () => {
    await writeFile(path.join(repo, 'a.txt'), 'changed\n');
    await run('git', ['status', '--porcelain'], { cwd: repo });
    await run('git', ['diff'], { cwd: repo }).catch(() => undefined);
    await run('git', ['-c', 'user.name=T', '-c', 'user.email=t@e.x', 'commit', '-qam', 'x'], {
      cwd: repo,
    }).catch(() => undefined);
    const log = await ran();
    expect(log).toContain('fsmonitor');
    expect(log).toContain('external-diff');
    expect(log).toContain('hook pre-commit');
  });

  it("runs none of them through the server's git", async () => {
    await writeFile(path.join(repo, 'a.txt'), 'changed\n');
    await writeFile(path.join(repo, 'b.txt'), 'new\n');
    await gitText(['status', '--porcelain'], { cwd: repo });
    await gitText(['diff', ...NO_DIFF_DRIVERS], { cwd: repo });
    await git(['add', '-A'], { cwd: repo });
    // No --no-verify, no --no-gpg-sign: the settings alone keep the hooks and the signing program off.
    await git(['commit', '--quiet', '-m', 'changed'], { cwd: repo });
    await gitText(['log', '-p', ...NO_DIFF_DRIVERS], { cwd: repo });
    await gitText(['show', ...NO_DIFF_DRIVERS, 'HEAD'], { cwd: repo });
    await git(['checkout', '--quiet', '-b', 'other'], { cwd: repo });
    await git(['update-ref', 'refs/heads/third', 'HEAD'], { cwd: repo });
    await git(['reset', '--hard', '--quiet', 'HEAD~1'], { cwd: repo });
    expect(await ran()).toBe('');
    // The commit was made, unsigned.
    const raw = await gitText(['cat-file', 'commit', 'main'], { cwd: repo });
    expect(raw).toContain('changed');
    expect(raw).not.toContain('gpgsig');
  });

  it('reads no system or global config: HOME holds no setting the server picks up', async () => {
    const home = path.join(root, 'home');
    await mkdir(path.join(home, '.config', 'git'), { recursive: true });
    await writeFile(
      path.join(home, '.gitconfig'),
      `[alias]\n\tst = status\n[core]\n\tfsmonitor = ${await tattler('global-fsmonitor')}\n`,
    );
    await writeFile(path.join(home, '.config', 'git', 'ignore'), 'b.txt\n');
    await writeFile(path.join(repo, 'b.txt'), 'new\n');
    const error = await git(['st'], { cwd: repo, home }).catch((e: unknown) => e as GitError);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).stderr).toMatch(/'st' is not a git command/);
    // The operator's global ignore file is not the server's: b.txt is committed.
    await git(['add', '-A'], { cwd: repo, home });
    expect(await gitText(['ls-files'], { cwd: repo, home })).toContain('b.txt');
    expect(await ran()).toBe('');
  });
});
