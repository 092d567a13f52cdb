import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInBackground } from '@/server/lib/background-priority.js';

/** What a JS/TS file imports: the module requests, as written, in order of first appearance. */
export interface ExtractedImports {
  requests: string[];
  /** Set when the file does not parse (or crashed the parser): it is then a node without edges. */
  error?: string;
}

const JS_EXTENSIONS = /\.(?:[cm]?[jt]sx?)$/;

export function isJsFile(file: string): boolean {
  return JS_EXTENSIONS.test(file);
}

/** A file to parse: its path (for the dialect) and its text. */
export interface ParseInput {
  path: string;
  source: string;
}

interface Batch {
  id: number;
  files: ParseInput[];
  resolve: (results: ExtractedImports[]) => void;
}

interface Answer {
  id: number;
  results: ExtractedImports[];
}

/** parser-process.mjs, beside this file in source and in the bundle (dist/server). */
function parserFile(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [
    path.join(here, 'parser-process.mjs'),
    path.join(here, 'modules', 'graph', 'parser-process.mjs'),
  ];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`the import parser was not found (looked in ${candidates.join(', ')})`);
  return found;
}

/** One parser process: batches are answered in the order they were sent. */
class Parser {
  readonly child: ChildProcess;
  readonly pending: Batch[] = [];

  constructor(onAnswer: () => void, onExit: (parser: Parser) => void) {
    this.child = fork(parserFile(), [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    runInBackground(this.child.pid);
    this.child.on('message', (answer: Answer) => {
      const batch = this.pending.shift();
      if (!batch || batch.id !== answer.id) return;
      batch.resolve(
        answer.results.map((result) =>
          result.error ? { requests: [], error: result.error } : { requests: result.requests },
        ),
      );
      this.idleCheck();
      onAnswer();
    });
    this.child.on('exit', () => onExit(this));
    this.child.on('error', () => this.child.kill('SIGKILL'));
    this.child.unref();
    this.idleCheck();
  }

  send(batch: Batch) {
    this.pending.push(batch);
    this.idleCheck();
    this.child.send({ id: batch.id, files: batch.files });
  }

  /** Idle, a parser keeps nothing alive: the server (or a test) exits when its own work is done. */
  idleCheck() {
    if (this.pending.length === 0) this.child.channel?.unref();
    else this.child.channel?.ref();
  }
}

/** Batches in flight per parser: one being parsed, one waiting in its pipe, so it never idles. */
const IN_FLIGHT = 2;

/**
 * Parses JS/TS files in parser processes (two: the machine's cores are shared with the server), in
 * batches (one message per file would cost the server more than the parse). oxc recurses in native
 * code, and a file nested deeply enough overflows the stack, which ends the process: it must not be
 * the server's. When a parser dies, the batch it was on is sent again one file at a time, so that
 * the culprit alone gets an error; the batches queued behind it go to a new parser.
 */
class ParserPool {
  readonly #parsers: Parser[] = [];
  readonly #queue: Batch[] = [];
  #nextId = 1;

  constructor(private readonly size: number) {}

  parse(files: ParseInput[]): Promise<ExtractedImports[]> {
    return new Promise((resolve) => {
      this.#queue.push({ id: this.#nextId++, files, resolve });
      this.#pump();
    });
  }

  /** Starts the parsers now (Node and oxc take ~0.1 s to load), so that the first batch need not wait. */
  start() {
    while (this.#parsers.length < this.size) this.#spawn();
  }

  #spawn() {
    this.#parsers.push(
      new Parser(
        () => this.#pump(),
        (parser) => this.#exited(parser),
      ),
    );
  }

  #pump() {
    while (this.#queue.length > 0) {
      if (this.#parsers.length < this.size) this.#spawn();
      const parser = this.#parsers.reduce((a, b) => (b.pending.length < a.pending.length ? b : a));
      if (parser.pending.length >= IN_FLIGHT) return;
      parser.send(this.#queue.shift() as Batch);
    }
  }

  #exited(parser: Parser) {
    const index = this.#parsers.indexOf(parser);
    if (index >= 0) this.#parsers.splice(index, 1);
    const [culprit, ...rest] = parser.pending.splice(0);
    const again: Batch[] = [];
    if (culprit && culprit.files.length === 1) {
      culprit.resolve([{ requests: [], error: 'the parser crashed on this file (nested too deeply?)' }]);
    } else if (culprit) {
      const results: ExtractedImports[] = [];
      let left = culprit.files.length;
      culprit.files.forEach((file, i) => {
        again.push({
          id: this.#nextId++,
          files: [file],
          resolve: ([result]) => {
            results[i] = result as ExtractedImports;
            if (--left === 0) culprit.resolve(results);
          },
        });
      });
    }
    this.#queue.unshift(...again, ...rest);
    this.#pump();
  }
}

const pool = new ParserPool(2);

/** Starts the parser processes ahead of a build that will need them. */
export function startParsers(): void {
  pool.start();
}

/** The imports of JS/TS files, in order (see parser-process.mjs for what counts). */
export function extractJsImports(files: ParseInput[]): Promise<ExtractedImports[]> {
  return files.length === 0 ? Promise.resolve([]) : pool.parse(files);
}
