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

interface Job {
  id: number;
  path: string;
  source: string;
  resolve: (result: ExtractedImports) => void;
}

interface Answer extends ExtractedImports {
  id: number;
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

/** One parser process: files are answered in the order they were sent. */
class Parser {
  readonly child: ChildProcess;
  readonly pending: Job[] = [];

  constructor(onExit: (parser: Parser) => void) {
    this.child = fork(parserFile(), [], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    runInBackground(this.child.pid);
    this.child.on('message', (answer: Answer) => {
      const job = this.pending.shift();
      if (!job || job.id !== answer.id) return;
      job.resolve(answer.error ? { requests: [], error: answer.error } : { requests: answer.requests });
      this.idleCheck();
    });
    this.child.on('exit', () => onExit(this));
    this.child.on('error', () => this.child.kill('SIGKILL'));
    this.child.unref();
    this.idleCheck();
  }

  send(job: Job) {
    this.pending.push(job);
    this.idleCheck();
    this.child.send({ id: job.id, path: job.path, source: job.source });
  }

  /** Idle, a parser keeps nothing alive: the server (or a test) exits when its own work is done. */
  idleCheck() {
    if (this.pending.length === 0) this.child.channel?.unref();
    else this.child.channel?.ref();
  }
}

/**
 * Parses JS/TS files in parser processes (two: the machine's cores are shared with the server).
 * oxc recurses in native code, and a file nested deeply enough overflows the stack, which ends the
 * process: it must not be the server's. When a parser dies, the file it was on gets an error, and
 * the files queued behind it go to a new parser.
 */
class ParserPool {
  readonly #parsers: Parser[] = [];
  #nextId = 1;

  constructor(private readonly size: number) {}

  parse(file: string, source: string): Promise<ExtractedImports> {
    return new Promise((resolve) => this.#dispatch({ id: this.#nextId++, path: file, source, resolve }));
  }

  #dispatch(job: Job) {
    if (this.#parsers.length < this.size) this.#parsers.push(new Parser((parser) => this.#exited(parser)));
    const parser = this.#parsers.reduce((a, b) => (b.pending.length < a.pending.length ? b : a));
    parser.send(job);
  }

  #exited(parser: Parser) {
    const index = this.#parsers.indexOf(parser);
    if (index >= 0) this.#parsers.splice(index, 1);
    const [culprit, ...rest] = parser.pending.splice(0);
    culprit?.resolve({ requests: [], error: 'the parser crashed on this file (nested too deeply?)' });
    for (const job of rest) this.#dispatch(job);
  }
}

const pool = new ParserPool(2);

/** The imports of a JS/TS file (see parser-process.mjs for what counts). */
export function extractJsImports(file: string, source: string): Promise<ExtractedImports> {
  return pool.parse(file, source);
}
