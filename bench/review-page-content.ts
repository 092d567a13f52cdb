// The change the review-page part reviews: `files` files in several languages (about half of them
// modified from the default branch in several hunks each, the others added), with `lines` changed
// lines in all (additions + deletions), files of uneven size, and some long lines (a long string,
// a minified JSON line, prose paragraphs, one line past the highlighter's 2,000 characters).
import path from 'node:path';

export interface ReviewChange {
  files: number;
  lines: number;
}

/** One file of the change: its path, its content on the default branch (null: added) and on the task's branch. */
export interface ChangedFile {
  path: string;
  base: string | null;
  head: string;
  /** Lines added and deleted, as git counts them. */
  additions: number;
  deletions: number;
}

/** A small deterministic generator, so that every run reviews the same change. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Source lines of one language, a block at a time: `index` numbers the block, `salt` tells versions apart. */
type Block = (index: number, salt: string) => string[];

const long = (index: number, words: number) =>
  Array.from({ length: words }, (_, word) => `term${(index * 31 + word * 7) % 997}`).join(' ');

const LANGUAGES: { ext: string; dir: string; header: string[]; block: Block }[] = [
  {
    ext: 'ts',
    dir: 'src/server/handlers',
    header: ["import { z } from 'zod';", "import type { Context } from '../context.js';", ''],
    block: (i, salt) => [
      `/** Handles request kind ${i} (${salt}). */`,
      `export async function handle${i}(ctx: Context, input: unknown): Promise<Result${i % 7}> {`,
      `  const parsed = schema${i % 5}.parse(input);`,
      `  const rows = await ctx.db.select().from(table${i % 3}).where(eq(table${i % 3}.id, parsed.id));`,
      `  return { ok: rows.length > 0, label: '${salt}-${i}', count: rows.length * ${i % 11} };`,
      '}',
      '',
    ],
  },
  {
    ext: 'tsx',
    dir: 'src/web/components',
    header: ["import { useState } from 'react';", "import { cn } from '@/web/lib/cn';", ''],
    block: (i, salt) => [
      `export function Panel${i}({ title }: { title: string }) {`,
      `  const [open, setOpen] = useState(${i % 2 === 0});`,
      '  return (',
      `    <section className={cn('rounded border p-2', open && 'bg-zinc-50')} data-version="${salt}">`,
      `      <button type="button" onClick={() => setOpen(!open)}>{title} #${i}</button>`,
      '    </section>',
      '  );',
      '}',
      '',
    ],
  },
  {
    ext: 'py',
    dir: 'services/worker',
    header: ['from dataclasses import dataclass', 'import json', ''],
    block: (i, salt) => [
      '@dataclass',
      `class Job${i}:`,
      `    """A queued job of kind ${i} ({'${salt}'})."""`,
      '    name: str',
      `    retries: int = ${i % 4}`,
      '',
      `    def payload(self) -> str:`,
      `        return json.dumps({"name": self.name, "kind": ${i}, "version": "${salt}"})`,
      '',
    ],
  },
  {
    ext: 'go',
    dir: 'cmd/agent',
    header: ['package main', '', 'import "fmt"', ''],
    block: (i, salt) => [
      `// step${i} runs step ${i} of the plan (${salt}).`,
      `func step${i}(in []int) (int, error) {`,
      '\ttotal := 0',
      '\tfor _, v := range in {',
      `\t\ttotal += v * ${i % 9}`,
      '\t}',
      `\treturn total, fmt.Errorf("step ${i}: %s", "${salt}")`,
      '}',
      '',
    ],
  },
  {
    ext: 'rs',
    dir: 'crates/core/src',
    header: ['use std::collections::HashMap;', ''],
    block: (i, salt) => [
      `/// Entry ${i} of the index (${salt}).`,
      `pub fn entry_${i}(map: &mut HashMap<String, u64>) -> Option<u64> {`,
      `    let key = format!("{}-{}", "${salt}", ${i});`,
      `    *map.entry(key.clone()).or_insert(0) += ${i % 13};`,
      '    map.get(&key).copied()',
      '}',
      '',
    ],
  },
  {
    ext: 'java',
    dir: 'android/app/src/main/java/dev/autocoder',
    header: ['package dev.autocoder;', '', 'import java.util.List;', ''],
    block: (i, salt) => [
      `  /** Sums the list for rule ${i} (${salt}). */`,
      `  public static int rule${i}(List<Integer> values) {`,
      '    int sum = 0;',
      `    for (int value : values) sum += value * ${i % 6};`,
      `    return sum + "${salt}".length();`,
      '  }',
      '',
    ],
  },
  {
    ext: 'md',
    dir: 'docs/guide',
    header: ['# Guide', ''],
    block: (i, salt) => [
      `## Section ${i} (${salt})`,
      '',
      // Prose is written one paragraph to a line: a long line.
      `The ${salt} behaviour of step ${i} is ${long(i, 60)}.`,
      '',
      `- item ${i}: \`${salt}-${i}\``,
      '',
    ],
  },
  {
    ext: 'json',
    dir: 'config/fixtures',
    header: ['{'],
    block: (i, salt) => [
      `  "entry${i}": {`,
      `    "version": "${salt}",`,
      `    "weight": ${i % 17},`,
      `    "tags": ["a${i % 3}", "b${i % 5}", "c${i % 7}"]`,
      '  },',
    ],
  },
  {
    ext: 'css',
    dir: 'src/web/styles',
    header: [':root {', '  --accent: #0ea5e9;', '}', ''],
    block: (i, salt) => [
      `.card-${i} /* ${salt} */ {`,
      `  padding: ${i % 8}px ${(i * 3) % 16}px;`,
      `  color: rgb(${i % 255} ${(i * 7) % 255} ${(i * 13) % 255});`,
      '  border-radius: 4px;',
      '}',
      '',
    ],
  },
  {
    ext: 'yaml',
    dir: 'deploy/k8s',
    header: ['apiVersion: apps/v1', 'kind: List', 'items:'],
    block: (i, salt) => [
      `  - name: worker-${i}`,
      `    image: registry.local/worker:${salt}`,
      `    replicas: ${1 + (i % 3)}`,
      '    env:',
      `      - { name: SLOT, value: "${i}" }`,
    ],
  },
  {
    ext: 'sql',
    dir: 'db/migrations',
    header: ['-- Generated migration', ''],
    block: (i, salt) => [
      `CREATE TABLE IF NOT EXISTS t_${i} (`,
      '  id BIGSERIAL PRIMARY KEY,',
      `  label TEXT NOT NULL DEFAULT '${salt}',`,
      `  weight INTEGER NOT NULL DEFAULT ${i % 10}`,
      ');',
      '',
    ],
  },
  {
    ext: 'sh',
    dir: 'scripts/ci',
    header: ['#!/usr/bin/env bash', 'set -euo pipefail', ''],
    block: (i, salt) => [
      `step_${i}() {`,
      `  echo "step ${i} (${salt})"`,
      `  test -f "build/out-${i}.txt" || touch "build/out-${i}.txt"`,
      '}',
      '',
    ],
  },
];

/** `count` lines of a language from block `first` on, the block numbers offset by `file` so that files differ. */
function linesOf(language: (typeof LANGUAGES)[number], file: number, count: number, salt: string) {
  const out: string[] = [];
  for (let block = 0; out.length < count; block++) out.push(...language.block(file * 1000 + block, salt));
  return out.slice(0, count);
}

/**
 * The change: sizes drawn unevenly (a few files ten times the typical one, one near 1,500 changed
 * lines, all under the diff's 2,000-line cap so that every patch is sent), scaled to `lines` in all.
 */
export function reviewChange(change: ReviewChange, seed = 27): ChangedFile[] {
  const next = random(seed);
  const weights = Array.from({ length: change.files }, (_, index) => {
    if (index === 7) return 15;
    const draw = next();
    return draw < 0.08 ? 4 + next() * 6 : 0.3 + next() * 1.4;
  });
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0);
  const files: ChangedFile[] = [];
  let remaining = change.lines;
  for (let index = 0; index < change.files; index++) {
    const language = LANGUAGES[index % LANGUAGES.length]!;
    const last = index === change.files - 1;
    const share = last ? remaining : Math.round((change.lines * (weights[index] ?? 1)) / weightSum);
    const target = Math.min(1900, Math.max(4, share));
    remaining -= target;
    const file = path.posix.join(language.dir, `part${index % 9}`, `module_${index}.${language.ext}`);
    files.push(
      index % 2 === 0
        ? modifiedFile(file, language, index, target)
        : addedFile(file, language, index, target),
    );
  }
  return files;
}

/** A new file of `target` lines; every 25th one carries a line past the highlighter's 2,000 characters. */
function addedFile(
  file: string,
  language: (typeof LANGUAGES)[number],
  index: number,
  target: number,
): ChangedFile {
  const lines = [
    ...language.header,
    ...linesOf(language, index, Math.max(1, target - language.header.length), 'new'),
  ];
  if (index % 25 === 1 && lines.length > 4) lines[3] = `// ${long(index, 400)}`;
  const head = lines.slice(0, target);
  return { path: file, base: null, head: `${head.join('\n')}\n`, additions: head.length, deletions: 0 };
}

/**
 * A file of the default branch changed in several hunks: runs of 6 lines replaced every 24
 * lines (each replaced line one deletion and one addition), and new lines at its end, making
 * `target` changed lines in all.
 */
function modifiedFile(
  file: string,
  language: (typeof LANGUAGES)[number],
  index: number,
  target: number,
): ChangedFile {
  const replaced = Math.floor((target * 0.6) / 2);
  const appended = target - replaced * 2;
  const runs = Math.ceil(replaced / 6);
  const baseCount = Math.max(runs * 24, 12);
  const base = [...language.header, ...linesOf(language, index, baseCount, 'base')];
  const changed = linesOf(language, index, baseCount, 'v2');
  const head = [...base];
  let left = replaced;
  for (let start = language.header.length + 9; left > 0 && start < head.length; start += 24) {
    for (let offset = 0; offset < 6 && left > 0 && start + offset < head.length; offset++, left--) {
      // A line identical in both versions (a brace, an empty line) would not be a change: mark it.
      const at = start + offset;
      const line = changed[at - language.header.length] ?? '';
      head[at] = line === base[at] ? `${line} ` : line;
    }
  }
  const replacedLines = replaced - left;
  const tail = linesOf(language, index + 500, appended + (replaced - replacedLines) * 2, 'tail');
  head.push(...tail);
  return {
    path: file,
    base: `${base.join('\n')}\n`,
    head: `${head.join('\n')}\n`,
    additions: replacedLines + tail.length,
    deletions: replacedLines,
  };
}
