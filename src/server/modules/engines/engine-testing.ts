import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AgentToolResultData } from '@/contracts/pipeline.js';
import type { CoderStep } from '../agent-tools/coder-engine.js';
import { LlmError } from '../llm/provider.js';
import { createSandbox, type Sandbox } from '../sandbox/sandbox.js';
import { findBwrap } from '../sandbox/sandbox-mode.js';
import { type SandboxFixture, sandboxFixture } from '../sandbox/sandbox-testing.js';
import { type ExternalEngineId, findEngineBinary } from './engine-catalog.js';

/**
 * Whether the engine tests run here: the engine's binary (an optional dependency) and bubblewrap
 * must be installed. CI sets AUTOCODER_TEST_ENGINES=required, and then a missing one fails the
 * tests instead of skipping them.
 */
export function engineTestsSkipped(id: ExternalEngineId, required: boolean, searchPath: string): boolean {
  const installed = 'found' in findEngineBinary(id) && findBwrap(searchPath) !== null;
  if (!installed && required) {
    throw new Error(`${id} or bubblewrap is not installed, and AUTOCODER_TEST_ENGINES=required`);
  }
  return !installed;
}

/** What a step showed, as the pipeline's timeline would get it. */
export interface Shown {
  text: string;
  calls: { callId: string; tool: string; input: Record<string, unknown>; engine?: string | undefined }[];
  results: {
    callId: string;
    tool: string;
    ok: boolean;
    summary: string;
    change?: AgentToolResultData['change'];
  }[];
}

export interface EngineGround {
  fx: SandboxFixture;
  sandbox: Sandbox;
  worktree: string;
}

/** A bubblewrap sandbox over a data dir laid out as the server keeps it (no network); `searchPath` is its PATH. */
export async function engineGround(searchPath: string): Promise<EngineGround> {
  const fx = await sandboxFixture();
  const sandbox = createSandbox({
    mode: 'bwrap',
    bwrapPath: findBwrap(searchPath),
    path: searchPath,
    hidden: [fx.dataDir],
  });
  await mkdir(path.join(fx.worktree, 'src'), { recursive: true });
  return { fx, sandbox, worktree: fx.worktree };
}

/** A coder step for an engine test; `beforeWrite` refuses what `refuse` says. */
export function engineStep(
  worktree: string,
  prompt: string,
  options: { signal?: AbortSignal; refuse?: (file: string) => string | null; model?: string } = {},
): { step: CoderStep; shown: Shown; written: string[] } {
  const shown: Shown = { text: '', calls: [], results: [] };
  const written: string[] = [];
  const step: CoderStep = {
    runId: 'run-engine-test',
    worktree,
    prompt,
    title: 'Engine test step',
    provider: {
      id: 'anthropic',
      simulated: false,
      stream: () => Promise.reject(new LlmError('bad_request', 'not used')),
      turn: () => Promise.reject(new LlmError('bad_request', 'not used')),
    },
    model: options.model ?? 'scripted-model',
    maxTokens: 8192,
    maxToolCalls: 20,
    signal: options.signal ?? new AbortController().signal,
    beforeWrite: async (file) => {
      const refusal = options.refuse?.(file);
      if (refusal) throw new Error(refusal);
      written.push(file);
    },
    events: {
      onText: (chunk) => {
        shown.text += chunk;
      },
      onToolCall: (call) => {
        shown.calls.push(call);
      },
      onToolResult: ({ callId, tool, result }) => {
        shown.results.push({
          callId,
          tool,
          ok: result.ok,
          summary: result.summary,
          ...(result.ok && result.changed ? { change: result.changed } : {}),
        });
      },
    },
    sandboxed: { readOnlyPaths: [], allowedHosts: null },
  };
  return { step, shown, written };
}
