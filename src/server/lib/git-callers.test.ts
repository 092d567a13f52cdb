import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every git the server runs goes through lib/git.ts, which gives it the hardened configuration
 * (lib/git-hardening.ts). A file that starts git itself would run it without: this test names any.
 */

const SERVER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The files that start git themselves, each applying the hardening on its own: a long-lived
 * `cat-file --batch-command` reader, and the CGI `http-backend` whose stdout is streamed.
 */
const DIRECT_SPAWNERS = new Set(['lib/git-objects.ts', 'modules/git-http/git-backend.ts']);

/** Imports a way of starting a process, and names git as a program (`'git'`, `command: "git"`). */
function spawnsGit(source: string): boolean {
  const startsProcesses =
    /from\s+['"](?:node:)?child_process['"]|require\(\s*['"](?:node:)?child_process['"]\s*\)/.test(source);
  const namesGit = /(?<![\w./-])(['"`])git\1/.test(source);
  const launchesGit = /command:\s*(['"`])git\1/.test(source);
  return (startsProcesses && namesGit) || launchesGit;
}

async function serverSources(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      // Test helpers are not the server.
      if (entry.name !== 'testing' && entry.name !== 'node_modules')
        files.push(...(await serverSources(full)));
    } else if (/\.(?:ts|mts|mjs|js)$/.test(entry.name) && !/\.test\.|-testing\./.test(entry.name)) {
      files.push(full);
    }
  }
  return files;
}

describe('git is started only through lib/git.ts', () => {
  it('tells a direct spawn of git from a call through the runner', () => {
    expect(spawnsGit(`import { spawn } from 'node:child_process';\nspawn('git', ['status']);`)).toBe(true);
    expect(spawnsGit(`import { execFile } from "child_process";\nexecFile("git", ["add", "-A"]);`)).toBe(
      true,
    );
    expect(spawnsGit(`runCommand({ command: 'git', args });`)).toBe(true);
    expect(spawnsGit(`import { git } from '@/server/lib/git.js';\nawait git(['status']);`)).toBe(false);
    // A sandboxed command is not the server's git, and '.git' is a path.
    expect(
      spawnsGit(`import { spawn } from 'node:child_process';\nspawn(bwrap, ['--ro-bind', '.git']);`),
    ).toBe(false);
  });

  it('finds no other file of the server that starts git itself', async () => {
    const offenders: string[] = [];
    for (const file of await serverSources(SERVER)) {
      const relative = path.relative(SERVER, file).split(path.sep).join('/');
      if (relative === 'lib/git.ts' || DIRECT_SPAWNERS.has(relative)) continue;
      if (spawnsGit(await readFile(file, 'utf8'))) offenders.push(relative);
    }
    expect(offenders, 'run git with git()/gitText() of lib/git.ts (hardened configuration)').toEqual([]);
  });

  it('still finds the two direct spawners it lets through (the list is not stale)', async () => {
    for (const relative of DIRECT_SPAWNERS) {
      expect(spawnsGit(await readFile(path.join(SERVER, relative), 'utf8')), relative).toBe(true);
    }
  });
});
