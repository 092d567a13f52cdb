import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { EngineInfo } from '@/contracts/engines.js';
import { CODER_ENGINE_LABELS, type CoderEngineId } from '@/contracts/projects.js';

export type ExternalEngineId = Extract<CoderEngineId, 'claude-code' | 'codex'>;
export const EXTERNAL_ENGINES: readonly ExternalEngineId[] = ['claude-code', 'codex'];

export function isExternalEngine(id: CoderEngineId): id is ExternalEngineId {
  return (EXTERNAL_ENGINES as readonly string[]).includes(id);
}

/** An external engine's program as installed by npm (an optional dependency of AutoCoder). */
export interface EngineBinary {
  /** The native executable. */
  program: string;
  /** The directory to make visible inside the sandbox (the platform package). */
  packageDir: string;
  version: string;
}

export type BinaryLookup = { found: EngineBinary } | { missing: string };

const INSTALL: Record<ExternalEngineId, string> = {
  'claude-code':
    "Install AutoCoder's optional dependencies where it runs (`npm install`, without --omit=optional): @anthropic-ai/claude-agent-sdk brings Claude Code's native binary for this platform.",
  codex:
    "Install AutoCoder's optional dependencies where it runs (`npm install`, without --omit=optional): @openai/codex brings the Codex binary for this platform.",
};

const require = createRequire(import.meta.url);

/** Where Node would find the package `name` from here (its package.json need not be exported). */
function packageDirOf(name: string): string | null {
  for (const dir of require.resolve.paths(name) ?? []) {
    const candidate = path.join(dir, name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
  }
  return null;
}

function versionOf(dir: string): string {
  try {
    const parsed = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof parsed.version === 'string' ? parsed.version : 'unknown';
  } catch {
    return 'unknown';
  }
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** glibc or musl: the Claude Code package differs. */
function isMusl(): boolean {
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

/** Where npm put an engine's binary on this machine, or why it is not there. */
export function findEngineBinary(id: ExternalEngineId): BinaryLookup {
  if (process.platform !== 'linux') {
    return { missing: 'External engines run in the Linux sandbox only; this server runs on another system.' };
  }
  const arch = process.arch === 'x64' ? 'x64' : process.arch === 'arm64' ? 'arm64' : null;
  if (!arch) return { missing: `No ${id} build for ${process.arch} processors.` };
  if (id === 'claude-code') {
    const sdk = packageDirOf('@anthropic-ai/claude-agent-sdk');
    if (!sdk) return { missing: 'Claude Code is not installed (@anthropic-ai/claude-agent-sdk).' };
    const platform = `@anthropic-ai/claude-agent-sdk-linux-${arch}${isMusl() ? '-musl' : ''}`;
    const dir = packageDirOf(platform);
    const program = dir ? path.join(dir, 'claude') : null;
    if (!dir || !program || !executable(program)) {
      return { missing: `Claude Code's binary for this platform is not installed (${platform}).` };
    }
    return { found: { program, packageDir: dir, version: versionOf(sdk) } };
  }
  const cli = packageDirOf('@openai/codex');
  if (!cli) return { missing: 'Codex is not installed (@openai/codex).' };
  const platform = `@openai/codex-linux-${arch}`;
  const dir = packageDirOf(platform);
  const triple = arch === 'x64' ? 'x86_64-unknown-linux-musl' : 'aarch64-unknown-linux-musl';
  const program = dir ? path.join(dir, 'vendor', triple, 'bin', 'codex') : null;
  if (!dir || !program || !executable(program)) {
    return { missing: `Codex's binary for this platform is not installed (${platform}).` };
  }
  return { found: { program, packageDir: dir, version: versionOf(cli) } };
}

/** Runs the binary with `--version` (our own program, not repository code): that it starts at all. */
function probe(binary: EngineBinary): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      binary.program,
      ['--version'],
      { timeout: 30_000, env: { PATH: '/usr/bin:/bin', HOME: '/nonexistent' } },
      (error, _stdout, stderr) => {
        if (!error) resolve(null);
        else resolve(`it did not start: ${(stderr || error.message).trim().split('\n')[0]?.slice(0, 300)}`);
      },
    );
  });
}

export interface EngineCatalog {
  /** Every engine, built-in ones first, with whether this server can run it. */
  list(): Promise<EngineInfo[]>;
  /** The binary of an external engine this server can run; throws the reason otherwise. */
  binary(id: ExternalEngineId): Promise<EngineBinary>;
  /** Why the engine cannot run here, or null. */
  unavailable(id: CoderEngineId): Promise<string | null>;
}

export class EngineUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineUnavailableError';
  }
}

/**
 * What engines this server can run: the built-in ones always; Claude Code and Codex when npm
 * installed their binaries, the binary starts, and the sandbox runs repository code at all.
 * The start probe runs once per process, on first use.
 */
export function createEngineCatalog(options: {
  /** Why the sandbox runs no code (mode off, or refused), or null. */
  sandboxRefusal: () => string | null;
  find?: (id: ExternalEngineId) => BinaryLookup;
}): EngineCatalog {
  const find = options.find ?? findEngineBinary;
  const probes = new Map<
    ExternalEngineId,
    Promise<{ binary: EngineBinary } | { reason: string; install?: string }>
  >();

  function state(id: ExternalEngineId) {
    let known = probes.get(id);
    if (!known) {
      known = (async () => {
        const lookup = find(id);
        if ('missing' in lookup) return { reason: lookup.missing, install: INSTALL[id] };
        const failed = await probe(lookup.found);
        return failed ? { reason: `${CODER_ENGINE_LABELS[id]}: ${failed}` } : { binary: lookup.found };
      })();
      probes.set(id, known);
    }
    return known;
  }

  async function reasonOf(id: ExternalEngineId): Promise<{ reason: string; install?: string } | null> {
    const refusal = options.sandboxRefusal();
    if (refusal) return { reason: `${refusal}: external engines run only in the sandbox.` };
    const known = await state(id);
    return 'reason' in known ? known : null;
  }

  return {
    async list() {
      const builtIn: EngineInfo[] = (['autocoder', 'one-shot'] as const).map((id) => ({
        id,
        label: CODER_ENGINE_LABELS[id],
        builtIn: true,
        available: true,
        endpoint: 'any',
      }));
      const external = await Promise.all(
        EXTERNAL_ENGINES.map(async (id): Promise<EngineInfo> => {
          const lookup = find(id);
          const problem = await reasonOf(id);
          return {
            id,
            label: CODER_ENGINE_LABELS[id],
            builtIn: false,
            available: problem === null,
            ...(problem ? { reason: problem.reason } : {}),
            ...(problem?.install ? { install: problem.install } : {}),
            ...('found' in lookup ? { version: lookup.found.version } : {}),
            endpoint: id === 'claude-code' ? 'anthropic' : 'openai-responses',
          };
        }),
      );
      return [...builtIn, ...external];
    },
    async binary(id) {
      const problem = await reasonOf(id);
      if (problem) throw new EngineUnavailableError(withInstall(problem));
      const known = await state(id);
      if (!('binary' in known)) throw new EngineUnavailableError(withInstall(known));
      return known.binary;
    },
    async unavailable(id) {
      if (!isExternalEngine(id)) return null;
      const problem = await reasonOf(id);
      return problem ? withInstall(problem) : null;
    },
  };
}

function withInstall(problem: { reason: string; install?: string }): string {
  return problem.install ? `${problem.reason} ${problem.install}` : problem.reason;
}
