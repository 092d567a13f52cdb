// For the simulator's tool tests: a tiny executor over a temp directory, answering as agent-tools' executor
// does (numbered lines and their notes, "path:line:text", exact-string edits).
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ExecResult {
  ok: boolean;
  content: string;
}

export interface Executor {
  execute(name: string, input: unknown): Promise<ExecResult>;
}

export interface TempRepo {
  root: string;
  read(rel: string): Promise<string>;
  has(rel: string): Promise<boolean>;
  cleanup(): Promise<void>;
}

export async function tempRepo(files: Record<string, string>): Promise<TempRepo> {
  const root = await mkdtemp(path.join(tmpdir(), 'autocoder-sim-tools-'));
  for (const [rel, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), content);
  }
  return {
    root,
    read: (rel) => readFile(path.join(root, rel), 'utf8'),
    has: (rel) =>
      stat(path.join(root, rel)).then(
        () => true,
        () => false,
      ),
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

async function walk(root: string, dir = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await walk(root, rel)));
    else out.push(rel);
  }
  return out.sort();
}

const TAKES: Record<string, string[]> = {
  list_files: ['path', 'glob'],
  read_file: ['path', 'startLine', 'endLine'],
  search: ['pattern', 'fixed', 'glob', 'caseSensitive'],
  edit_file: ['path', 'oldText', 'newText', 'replaceAll'],
  write_file: ['path', 'content'],
  run_check: [],
  finish: ['summary'],
};

/**
 * The tools, small: list, read (numbered lines and their notes), search, edit_file as an exact
 * string replace, write; run_check answered by `check`, finish by "Step finished.".
 */
export function tinyExecutor(root: string, check?: () => Promise<boolean>): Executor {
  const fail = (content: string): ExecResult => ({ ok: false, content });
  const done = (content: string): ExecResult => ({ ok: true, content });
  return {
    async execute(name, raw) {
      if (!(name in TAKES)) return fail(`unknown tool ${JSON.stringify(name)}`);
      let input: Record<string, unknown>;
      try {
        input = (typeof raw === 'string' ? JSON.parse(raw || '{}') : raw) as Record<string, unknown>;
      } catch {
        return fail(`the input of ${name} is not valid JSON`);
      }
      const extra = Object.keys(input).filter((key) => !TAKES[name]!.includes(key));
      if (extra.length) return fail(`invalid input for ${name}: unknown key ${extra.join(', ')}`);
      const rel = input.path as string | undefined;
      if (['read_file', 'edit_file', 'write_file'].includes(name) && !rel)
        return fail(`invalid input for ${name}: path is required`);
      if (name === 'search' && !input.pattern) return fail('invalid input for search: pattern is required');
      const abs = path.join(root, rel ?? '');
      try {
        switch (name) {
          case 'list_files': {
            const files = (await walk(root)).filter((f) => !rel || f.startsWith(`${rel}/`));
            return done(files.length ? files.join('\n') : `No files${rel ? ` under ${rel}` : ''}.`);
          }
          case 'read_file': {
            const lines = (await readFile(abs, 'utf8')).split('\n');
            if (lines.at(-1) === '') lines.pop();
            if (lines.length === 0) return done('(empty file)');
            const start = (input.startLine as number | undefined) ?? 1;
            const end = Math.min((input.endLine as number | undefined) ?? lines.length, start + 1999);
            const width = Math.max(4, String(end).length);
            const rows = lines
              .slice(start - 1, end)
              .map((l, i) => `${String(start + i).padStart(width)}\t${l}`);
            if (end < lines.length || start > 1) rows.push(`[Lines ${start}–${end} of ${lines.length}.]`);
            return done(rows.join('\n'));
          }
          case 'search': {
            const pattern = String(input.pattern);
            const test = input.fixed
              ? (l: string) => l.includes(pattern)
              : (l: string) => new RegExp(pattern).test(l);
            const hits: string[] = [];
            for (const file of await walk(root)) {
              if (input.glob && file !== input.glob) continue;
              for (const [i, l] of (await readFile(path.join(root, file), 'utf8')).split('\n').entries())
                if (test(l)) hits.push(`${file}:${i + 1}:${l}`);
            }
            return done(hits.length ? hits.join('\n') : 'No matches.');
          }
          case 'edit_file': {
            const text = await readFile(abs, 'utf8');
            const oldText = String(input.oldText);
            const count = text.split(oldText).length - 1;
            if (count === 0) return fail(`oldText was not found in ${rel}.`);
            if (count > 1) return fail(`oldText occurs ${count} times in ${rel}.`);
            await writeFile(
              abs,
              text.replace(oldText, () => String(input.newText)),
            );
            return done(`Edited ${rel}.`);
          }
          case 'write_file':
            await mkdir(path.dirname(abs), { recursive: true });
            await writeFile(abs, String(input.content));
            return done(`Wrote ${rel}.`);
          case 'run_check':
            if (!check) return fail('run_check is not handled here');
            return (await check())
              ? done('The check passed after 0.1 s. The end of its output:\nok')
              : done('The check failed, exit 1 after 0.1 s. The end of its output:\nfixed.txt is missing');
          default:
            return done('Step finished.');
        }
      } catch (error) {
        return fail(error instanceof Error ? error.message.replaceAll(root, '.') : String(error));
      }
    },
  };
}
