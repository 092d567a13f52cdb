import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveCommit } from '../modules/workspace/refs.js';
import { gitText } from './git.js';
import {
  closeGitObjectReaders,
  GitObjectsError,
  objectContents,
  objectInfo,
  openGitObjectReaders,
  readBlob,
} from './git-objects.js';

let repo: string;
const head = async () => (await gitText(['rev-parse', 'HEAD'], { cwd: repo })).trim();
async function commit(file: string, text: string) {
  await writeFile(path.join(repo, file), text);
  await gitText(['add', '-A'], { cwd: repo });
  await gitText(['commit', '-q', '-m', `write ${file}`], { cwd: repo });
  return head();
}

beforeAll(async () => {
  repo = await mkdtemp(path.join(tmpdir(), 'git-objects-'));
  await gitText(['init', '-q', '-b', 'main'], { cwd: repo });
  await commit('a.txt', 'one\n');
});
afterEach(() => closeGitObjectReaders());
afterAll(async () => rm(repo, { recursive: true, force: true }));

describe('git objects through one running cat-file', () => {
  it('answers what a new git process answers, after commits, pack-refs and repack', async () => {
    const first = await head();
    expect((await objectInfo(repo, 'refs/heads/main^{commit}'))?.oid).toBe(first);
    const second = await commit('a.txt', 'two\n');
    expect((await objectInfo(repo, 'refs/heads/main^{commit}'))?.oid).toBe(second);
    await gitText(['pack-refs', '--all'], { cwd: repo });
    const third = await commit('b.txt', 'three\n');
    await gitText(['repack', '-adq'], { cwd: repo });
    await gitText(['pack-refs', '--all'], { cwd: repo });
    expect((await objectInfo(repo, 'refs/heads/main^{commit}'))?.oid).toBe(third);
    const blob = await objectContents(repo, `${third}:b.txt`, 1024);
    expect(blob && 'data' in blob ? blob.data.toString() : null).toBe('three\n');
    // One process served every question.
    expect(openGitObjectReaders()).toBe(1);
  });

  it('answers questions asked together in order, and null for what does not exist', async () => {
    const tip = await head();
    const answers = await Promise.all([
      objectInfo(repo, 'refs/heads/nope^{commit}'),
      objectContents(repo, `${tip}:a.txt`, 1024),
      objectInfo(repo, `${tip}:missing.txt`),
      objectContents(repo, `${tip}:b.txt`, 1024),
    ]);
    expect(answers[0]).toBeNull();
    expect(answers[2]).toBeNull();
    const text = (answer: (typeof answers)[number]) =>
      answer && 'data' in answer ? answer.data.toString() : '';
    expect(text(answers[1])).toBe('two\n');
    expect(text(answers[3])).toBe('three\n');
  });

  it('never writes a revision holding a newline to the pipe', async () => {
    await expect(objectInfo(repo, 'main\ninfo HEAD')).rejects.toBeInstanceOf(GitObjectsError);
    // refs.ts falls back to its own command, which finds no such commit.
    expect(await resolveCommit(repo, 'main\ninfo HEAD')).toBeNull();
  });

  it('gives an object past the cap without its bytes, and readBlob cuts it at the cap', async () => {
    const tip = await commit('big.txt', 'x'.repeat(5000));
    const found = await objectContents(repo, `${tip}:big.txt`, 100);
    expect(found && 'data' in found).toBe(false);
    expect(found?.size).toBe(5000);
    const blob = await readBlob(repo, (found?.oid ?? '') as string, 100);
    expect(blob.truncated).toBe(true);
    expect(blob.data.length).toBeLessThanOrEqual(100);
  });

  it('fails a reader outside a repository, and refs.ts still answers through git', async () => {
    const plain = await mkdtemp(path.join(tmpdir(), 'not-a-repo-'));
    try {
      await expect(objectInfo(plain, 'HEAD')).rejects.toBeInstanceOf(GitObjectsError);
      await expect(resolveCommit(plain, 'HEAD')).rejects.toThrow(/git rev-parse failed/);
      // A failed reader is dropped, and the next question starts a new one.
      expect((await objectInfo(repo, 'HEAD^{commit}'))?.oid).toBe(await head());
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });
});
