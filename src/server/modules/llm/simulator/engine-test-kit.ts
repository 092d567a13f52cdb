// For the engine tests: the real Claude Code and Codex CLIs run against the simulator, in a temp git repository.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fileChangesSchema } from '@/contracts/pipeline.js';
import { git } from '@/server/lib/git.js';
import {
  buildCoderUserPrompt,
  type CoderPromptParams,
} from '@/server/modules/pipeline/prompts/coder-prompt.js';
import { answerFor } from './agents.js';
import { parsePrompt } from './prompt.js';
import { jsonOf, systemFor } from './prompt-fixtures.js';
import { parseScenario } from './scenario.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../../..');
export const CLAUDE_BIN = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');
export const CODEX_BIN = join(
  ROOT,
  'node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
);

/**
 * Whether the engine tests skip: only when the binary is missing and AUTOCODER_TEST_ENGINES is
 * not `required` (then a missing binary fails them).
 */
export const skipEngine = (binary: string) =>
  // biome-ignore lint/style/noProcessEnv: the CI switch that makes a missing engine fail, not skip
  !existsSync(binary) && process.env.AUTOCODER_TEST_ENGINES !== 'required';

/** A generous bound for one CLI test: a loaded 2-core machine must not fail it. */
export const CLI_TEST_TIMEOUT_MS = 120_000;

export interface Sandbox {
  /** The repository (the engine's working directory). */
  repo: string;
  /** HOME and the engines' own state directories. */
  home: string;
  cleanup(): Promise<void>;
}

/** A temp directory with a git repository (one commit of `files`) and an empty home. */
export async function sandbox(files: Record<string, string> = {}): Promise<Sandbox> {
  const root = await mkdtemp(join(tmpdir(), 'autocoder-engine-'));
  const repo = join(root, 'repo');
  const home = join(root, 'home');
  await mkdir(repo);
  await mkdir(home);
  await writeFile(join(repo, 'README.md'), '# Demo\n');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(repo, path)), { recursive: true });
    await writeFile(join(repo, path), content);
  }
  await git(['init', '-q', '-b', 'main'], { cwd: repo });
  await git(['add', '-A'], { cwd: repo });
  await git(['commit', '-qm', 'init'], { cwd: repo });
  return { repo, home, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export interface CliResult {
  code: number | null;
  /** stdout's JSON lines (lines that are not JSON left out). */
  events: Array<Record<string, unknown>>;
  stderr: string;
  ms: number;
}

/** Runs a CLI with exactly `env` (plus PATH), stdin closed, and reads its JSON lines. */
export function runCli(
  bin: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<CliResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd,
      env: { PATH: '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const events = stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .flatMap((line) => {
          try {
            return [JSON.parse(line) as Record<string, unknown>];
          } catch {
            return [];
          }
        });
      resolve({ code, events, stderr, ms: Date.now() - started });
    });
  });
}

/** What the one-shot coder writes for the same step when shown `current`: the files the step should leave. */
export function intendedFiles(
  params: Omit<CoderPromptParams, 'currentFiles'>,
  current: Record<string, string>,
): Map<string, string> {
  const currentFiles = Object.entries(current).map(([path, content]) => ({
    path,
    content,
    truncated: false,
    size: Buffer.byteLength(content),
  }));
  const prompt = buildCoderUserPrompt({ ...params, currentFiles });
  const answer = answerFor(parsePrompt(systemFor('coder'), prompt), parseScenario(''));
  return new Map(fileChangesSchema.parse(jsonOf(answer)).files.map((f) => [f.filePath, f.content]));
}
