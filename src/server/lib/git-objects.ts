import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { git, trustedGitEnv } from './git.js';
import { HARDENED_GIT_ENV, hardenedGitArgs } from './git-hardening.js';

/**
 * Reads objects and resolves revisions through one long-lived `git cat-file --batch-command` per
 * repository, instead of a new git process per question.
 *
 * Starting a process costs 5-15 ms of CPU (a fork and exec of git, through the launcher); a
 * question to a running `cat-file` is a line on a pipe, well under a millisecond. A run asks for
 * its branch head a dozen times, and the diff panel asks for two blobs and a head per file read.
 * A reader itself is started from the server's own thread (it needs its pipes), which holds the
 * event loop for 10-20 ms: ask here about directories asked often (a project's repository), and
 * use a plain command for one question (`resolveCommitByCommand` in refs.ts).
 *
 * Guarantees:
 * - Answers are as fresh as a new process's: `cat-file` reads loose refs and `packed-refs` again
 *   for every revision it resolves, and looks for new packs when an object is missing (checked by
 *   git-objects.test.ts across commits, `pack-refs` and `repack`).
 * - Questions to one reader are answered in the order they were asked (one pipe, FIFO).
 * - A reader that fails (its process exits, or a question outlives `QUESTION_TIMEOUT_MS`) rejects
 *   every pending question with `GitObjectsError` and is dropped; the next question starts a new
 *   one. Callers that can do without (see `refs.ts`) fall back to a plain `git` command.
 * - A revision holding a newline or NUL is never written to the pipe (it would be two questions):
 *   `ask` refuses it and the caller falls back.
 * - At most `MAX_READERS` processes live at once (least recently used closed first), each closed
 *   after `IDLE_MS` without a question, and none keeps the server alive or outlives its stdin.
 */

export class GitObjectsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GitObjectsError';
  }
}

export interface ObjectInfo {
  oid: string;
  type: string;
  size: number;
}

export interface ObjectContents extends ObjectInfo {
  data: Buffer;
}

const MAX_READERS = 16;
const IDLE_MS = 15_000;
const QUESTION_TIMEOUT_MS = 10_000;
/** `contents` is asked only for objects at most this big (the caller asks `info` first otherwise). */
export const MAX_BATCH_OBJECT_BYTES = 16 * 1024 * 1024;

interface Question {
  command: 'info' | 'contents';
  resolve: (answer: ObjectContents | ObjectInfo | null) => void;
  reject: (error: Error) => void;
}

const HEADER = /^([0-9a-f]{40,64}) (\w+) (\d+)$/;

class BatchReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Question[] = [];
  private buffered: Buffer = Buffer.alloc(0);
  /** The header of the object whose bytes are being read, when one is. */
  private body: ObjectInfo | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private questionTimer: NodeJS.Timeout | undefined;
  closed = false;

  constructor(
    readonly dir: string,
    private readonly onClose: (reader: BatchReader) => void,
  ) {
    // Spawned here, not through git(): the hardened configuration is given the same way.
    this.child = spawn('git', [...hardenedGitArgs(), 'cat-file', '--batch-command'], {
      cwd: dir,
      env: { ...trustedGitEnv(), ...HARDENED_GIT_ENV },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.unref();
    for (const stream of [this.child.stdin, this.child.stdout, this.child.stderr]) {
      (stream as unknown as { unref?: () => void }).unref?.();
    }
    this.child.stdout.on('data', (chunk: Buffer) => this.read(chunk));
    this.child.stderr.resume();
    this.child.stdin.on('error', () => this.fail('git cat-file closed its input'));
    this.child.on('error', (error) => this.fail(`git cat-file could not run: ${error.message}`));
    this.child.on('exit', () => this.fail('git cat-file exited'));
    this.touch();
  }

  ask(command: 'info' | 'contents', revision: string): Promise<ObjectContents | ObjectInfo | null> {
    if (this.closed) return Promise.reject(new GitObjectsError('the reader is closed'));
    if (/[\n\0]/.test(revision)) return Promise.reject(new GitObjectsError('the revision holds a newline'));
    return new Promise((resolve, reject) => {
      this.pending.push({ command, resolve, reject });
      this.child.stdin.write(`${command} ${revision}\n`);
      this.touch();
      if (!this.questionTimer) this.armQuestionTimer();
    });
  }

  close(): void {
    this.fail('the reader was closed');
  }

  private touch() {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.pending.length === 0) this.close();
      else this.touch();
    }, IDLE_MS);
    this.idleTimer.unref();
  }

  private armQuestionTimer() {
    clearTimeout(this.questionTimer);
    this.questionTimer = setTimeout(
      () => this.fail(`git cat-file did not answer in ${QUESTION_TIMEOUT_MS} ms`),
      QUESTION_TIMEOUT_MS,
    );
    this.questionTimer.unref();
  }

  private read(chunk: Buffer) {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const question = this.pending[0];
      if (!question) {
        this.buffered = Buffer.alloc(0);
        return;
      }
      if (this.body) {
        // The object's bytes, then the newline cat-file ends them with.
        const needed = this.body.size + 1;
        if (this.buffered.length < needed) return;
        const data = Buffer.from(this.buffered.subarray(0, this.body.size));
        this.buffered = this.buffered.subarray(needed);
        const info = this.body;
        this.body = null;
        this.answered(question, { ...info, data });
        continue;
      }
      const end = this.buffered.indexOf(0x0a);
      if (end < 0) return;
      const line = this.buffered.subarray(0, end).toString('utf8');
      this.buffered = this.buffered.subarray(end + 1);
      const header = HEADER.exec(line);
      if (!header) {
        // "<revision> missing" or "<revision> ambiguous": no such object.
        this.answered(question, null);
        continue;
      }
      const info = { oid: header[1] as string, type: header[2] as string, size: Number(header[3]) };
      if (question.command === 'info') this.answered(question, info);
      else this.body = info;
    }
  }

  private answered(question: Question, answer: ObjectContents | ObjectInfo | null) {
    this.pending.shift();
    question.resolve(answer);
    clearTimeout(this.questionTimer);
    this.questionTimer = undefined;
    if (this.pending.length > 0) this.armQuestionTimer();
  }

  private fail(reason: string) {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idleTimer);
    clearTimeout(this.questionTimer);
    for (const question of this.pending.splice(0)) question.reject(new GitObjectsError(reason));
    this.child.stdin.end();
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    this.onClose(this);
  }
}

const readers = new Map<string, BatchReader>();

function readerFor(dir: string): BatchReader {
  const existing = readers.get(dir);
  if (existing && !existing.closed) {
    // A Map iterates in insertion order: re-inserting makes this the most recently used.
    readers.delete(dir);
    readers.set(dir, existing);
    return existing;
  }
  const reader = new BatchReader(dir, (closed) => {
    if (readers.get(dir) === closed) readers.delete(dir);
  });
  readers.set(dir, reader);
  while (readers.size > MAX_READERS) {
    const oldest = readers.values().next().value;
    if (!oldest) break;
    oldest.close();
  }
  return reader;
}

/** The object a revision names (`<commit>^{commit}`, `<commit>:<path>`, an oid), or null. */
export async function objectInfo(dir: string, revision: string): Promise<ObjectInfo | null> {
  return (await readerFor(dir).ask('info', revision)) as ObjectInfo | null;
}

/**
 * The object a revision names with its bytes, or null when there is none. Objects larger than
 * `maxBytes` (at most MAX_BATCH_OBJECT_BYTES) come back without `data`: read those with a command
 * that stops at a cap.
 */
export async function objectContents(
  dir: string,
  revision: string,
  maxBytes: number,
): Promise<ObjectContents | ObjectInfo | null> {
  const reader = readerFor(dir);
  const info = (await reader.ask('info', revision)) as ObjectInfo | null;
  if (!info || info.size > Math.min(maxBytes, MAX_BATCH_OBJECT_BYTES)) return info;
  // By oid: the revision's ref may have moved between the two questions.
  return reader.ask('contents', info.oid);
}

/**
 * A blob's first `maxBytes` bytes (`truncated` when it has more): from the running reader when the
 * blob fits, otherwise from a `git cat-file blob` stopped at the cap.
 */
export async function readBlob(
  dir: string,
  object: string,
  maxBytes: number,
): Promise<{ data: Buffer; truncated: boolean }> {
  const found = await objectContents(dir, object, maxBytes).catch((error: unknown) => {
    if (error instanceof GitObjectsError) return null;
    throw error;
  });
  if (found && 'data' in found && found.type === 'blob') return { data: found.data, truncated: false };
  const out = await git(['cat-file', 'blob', object], { cwd: dir, maxOutputBytes: maxBytes });
  return { data: out.stdout, truncated: out.truncated };
}

/** Closes every reader (the server's shutdown; tests). */
export function closeGitObjectReaders(): void {
  for (const reader of [...readers.values()]) reader.close();
}

/** The directories readers are open for (tests). */
export function openGitObjectReaderDirs(): string[] {
  return [...readers.keys()];
}

/** How many readers are open (tests). */
export function openGitObjectReaders(): number {
  return readers.size;
}
