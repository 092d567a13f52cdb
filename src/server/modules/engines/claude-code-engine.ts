import type { HookCallback, Options, SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import type { TokenUsage } from '@/contracts/pipeline.js';
import { AgentStuckError } from '../agent-tools/agent-loop.js';
import type { CoderEngine, CoderStep, CoderStepResult } from '../agent-tools/coder-engine.js';
import { LlmError } from '../llm/provider.js';
import { redactSecrets } from '../llm/redact.js';
import type { EngineBinary } from './engine-catalog.js';
import { EngineFailedError, engineFailure } from './engine-errors.js';
import { DeferredProcess, type EngineSandbox, insideAddress, RELAY_PORT } from './engine-process.js';
import { engineInstructions } from './engine-prompt.js';
import { type EngineTarget, PLACEHOLDER_ANTHROPIC_KEY, PLACEHOLDER_OAUTH_TOKEN } from './engine-target.js';
import {
  asBuiltInCall,
  claudeToolResult,
  insideWorktree,
  resultText,
  shownCleanInput,
  worktreeRelative,
} from './engine-timeline.js';
import { createModelRelay } from './model-relay.js';

/** Claude Code's tools that write a file: each asks AutoCoder's lock rules first. */
const EDITING_TOOLS = 'Edit|Write|MultiEdit|NotebookEdit';
/** Claude Code's own retries of a failed model request before the step gives up (its limit is 10). */
const ENGINE_RETRIES = 3;
/** A hook may wait this long (seconds) for a lock: longer than any lock wait. */
const HOOK_TIMEOUT_SECONDS = 3_600;

/** Variables Claude Code gets in the sandbox besides its endpoint and placeholder credential. */
const QUIET_ENV = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_BUG_COMMAND: '1',
  // The sandbox is the boundary: its permission prompts are off (bypassPermissions), which it
  // allows a root-started process only when told it runs in a sandbox.
  IS_SANDBOX: '1',
  BUN_ENABLE_CRASH_REPORTING: '0',
};

export interface ClaudeCodeEngineOptions {
  sandbox: EngineSandbox;
  binary: () => Promise<EngineBinary>;
  target: EngineTarget;
  /** The SDK's `query` (loaded on first use: the package is optional). */
  loadSdk?: () => Promise<typeof import('@anthropic-ai/claude-agent-sdk')>;
}

function usageOf(usage: Record<string, unknown> | undefined): TokenUsage {
  const n = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const cacheRead = n(usage?.cache_read_input_tokens);
  const cacheWrite = n(usage?.cache_creation_input_tokens);
  return {
    inputTokens: n(usage?.input_tokens) + cacheRead + cacheWrite,
    outputTokens: n(usage?.output_tokens),
    ...(cacheRead ? { cacheReadTokens: cacheRead } : {}),
    ...(cacheWrite ? { cacheWriteTokens: cacheWrite } : {}),
  };
}

/**
 * Claude Code as the coder: the official Agent SDK drives the CLI, whose process runs in the
 * sandbox on the run's worktree (spawnClaudeCodeProcess), with its model reached through the relay.
 * A PreToolUse hook takes the file's WRITING lock before each edit and denies the edit with the
 * holder's name when the lock rules refuse. Its messages become the run's timeline.
 */
export function createClaudeCodeEngine(options: ClaudeCodeEngineOptions): CoderEngine {
  const { sandbox, target } = options;
  const loadSdk = options.loadSdk ?? (() => import('@anthropic-ai/claude-agent-sdk'));
  return {
    id: 'claude-code',
    async run(step: CoderStep): Promise<CoderStepResult> {
      const started = Date.now();
      const binary = await options.binary();
      const { query } = await loadSdk();
      const relay = createModelRelay(target.relay);
      const clean = (text: string) => redactSecrets(text, target.secrets);
      let proc: DeferredProcess | undefined;
      const abort = new AbortController();
      const onCancel = () => {
        abort.abort();
        void proc?.stop();
      };
      step.signal.addEventListener('abort', onCancel, { once: true });
      try {
        const endpoint = await insideAddress(sandbox, RELAY_PORT, relay);
        const agentEnv: Record<string, string> = {
          ...QUIET_ENV,
          ANTHROPIC_BASE_URL: endpoint.url,
          ...(target.oauth
            ? { CLAUDE_CODE_OAUTH_TOKEN: PLACEHOLDER_OAUTH_TOKEN }
            : { ANTHROPIC_API_KEY: PLACEHOLDER_ANTHROPIC_KEY }),
        };
        const lockHook: HookCallback = async (input) => {
          const toolInput = (input as { tool_input?: Record<string, unknown> }).tool_input ?? {};
          const file = worktreeRelative(step.worktree, toolInput.file_path ?? toolInput.notebook_path);
          const deny = (reason: string) => ({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse' as const,
              permissionDecision: 'deny' as const,
              permissionDecisionReason: reason,
            },
          });
          if (!file || !insideWorktree(file)) {
            return deny('Write only inside the repository (not outside it, not in .git).');
          }
          try {
            await step.beforeWrite(file);
            return {};
          } catch (error) {
            return deny(clean((error as Error).message));
          }
        };
        const sdkOptions: Options = {
          cwd: step.worktree,
          pathToClaudeCodeExecutable: binary.program,
          systemPrompt: { type: 'preset', preset: 'claude_code', append: engineInstructions('claude-code') },
          permissionMode: 'bypassPermissions',
          allowDangerouslySkipPermissions: true,
          settingSources: [],
          persistSession: false,
          includePartialMessages: true,
          maxTurns: step.maxToolCalls,
          model: step.model,
          abortController: abort,
          hooks: {
            PreToolUse: [{ matcher: EDITING_TOOLS, hooks: [lockHook], timeout: HOOK_TIMEOUT_SECONDS }],
          },
          spawnClaudeCodeProcess: (spawn) => {
            const entry = spawn.env.CLAUDE_CODE_ENTRYPOINT;
            proc = new DeferredProcess(
              sandbox.spawn({
                command: [spawn.command, ...spawn.args],
                cwd: step.worktree,
                stdin: 'pipe',
                relays: endpoint.relay ? [endpoint.relay] : undefined,
                agentEnv: { ...agentEnv, ...(entry ? { CLAUDE_CODE_ENTRYPOINT: entry } : {}) },
                readOnlyPaths: [...(step.sandboxed?.readOnlyPaths ?? []), binary.packageDir],
                allowedHosts: step.sandboxed?.allowedHosts ?? null,
              }),
            );
            if (step.signal.aborted) proc.kill('SIGTERM');
            return proc;
          },
        };
        const calls = new Map<string, { tool: string; input: Record<string, unknown> }>();
        const streamed = new Set<string>();
        const transcript: string[] = [];
        let currentMessage = '';
        let toolCalls = 0;
        let final: Extract<SDKMessage, { type: 'result' }> | undefined;
        for await (const message of query({ prompt: step.prompt, options: sdkOptions })) {
          if (step.signal.aborted) break;
          switch (message.type) {
            case 'stream_event': {
              const event = message.event as {
                type: string;
                message?: { id?: string };
                delta?: { type?: string; text?: string };
              };
              if (event.type === 'message_start') currentMessage = event.message?.id ?? '';
              if (
                event.type === 'content_block_delta' &&
                event.delta?.type === 'text_delta' &&
                event.delta.text
              ) {
                streamed.add(currentMessage);
                step.events.onText(clean(event.delta.text));
              }
              break;
            }
            case 'assistant': {
              for (const block of message.message.content) {
                if (block.type === 'text') {
                  transcript.push(block.text);
                  if (!streamed.has(message.message.id)) step.events.onText(clean(`${block.text}\n`));
                } else if (block.type === 'tool_use') {
                  toolCalls++;
                  const input = (block.input ?? {}) as Record<string, unknown>;
                  calls.set(block.id, { tool: block.name, input });
                  await step.events.onToolCall({
                    callId: block.id,
                    tool: block.name,
                    input: shownCleanInput(input, clean),
                    engine: 'claude-code',
                  });
                }
              }
              break;
            }
            case 'user': {
              const content = message.message.content;
              if (!Array.isArray(content)) break;
              // Claude Code reports one call's outcome beside its result (an edit's patch).
              const report =
                content.length === 1 ? (message as { tool_use_result?: unknown }).tool_use_result : undefined;
              for (const block of content) {
                if (typeof block !== 'object' || block === null || block.type !== 'tool_result') continue;
                const call = calls.get(block.tool_use_id);
                if (!call) continue;
                const output = clean(resultText(block.content));
                const result = claudeToolResult(
                  step.worktree,
                  call.tool,
                  call.input,
                  !block.is_error,
                  output,
                  report,
                );
                const shown = asBuiltInCall(call.tool, call.input, report);
                await step.events.onToolResult({ callId: block.tool_use_id, ...shown, result });
              }
              break;
            }
            case 'system': {
              const note = message as { subtype?: string; error_status?: number | null; attempt?: number };
              if (note.subtype !== 'api_retry') break;
              // Claude Code retries a refused request up to ten times over minutes. A refused key
              // or a rate limit ends the step at once, as for the built-in coder; other errors
              // get a few of its retries.
              const status = note.error_status ?? 0;
              if (
                status === 401 ||
                status === 403 ||
                status === 429 ||
                (note.attempt ?? 0) >= ENGINE_RETRIES
              ) {
                throw engineFailure(
                  'Claude Code',
                  proc,
                  relay.stats,
                  clean,
                  `the model endpoint answered ${status || 'nothing'}`,
                );
              }
              step.events.onText(
                `\n[Claude Code] The model endpoint answered ${status || 'nothing'}; retrying…\n`,
              );
              break;
            }
            case 'result':
              final = message;
              break;
            default:
              break;
          }
        }
        if (step.signal.aborted) throw step.signal.reason ?? new Error('cancelled');
        if (!final) {
          throw engineFailure('Claude Code', proc, relay.stats, clean, 'it ended without a result');
        }
        const usage = usageOf(final.usage as Record<string, unknown> | undefined);
        if (final.subtype === 'error_max_turns') {
          throw new AgentStuckError(
            'coder',
            `Claude Code used its ${step.maxToolCalls} turns without finishing the step (the project's maxToolCalls).`,
          );
        }
        if (final.subtype !== 'success' || final.is_error) {
          const errors = 'errors' in final ? final.errors.join('; ') : '';
          const said = 'result' in final && typeof final.result === 'string' ? final.result : '';
          throw engineFailure('Claude Code', proc, relay.stats, clean, errors || said || final.subtype);
        }
        const summary = clean(final.result ?? '').trim();
        return {
          summary: summary || null,
          transcript: clean(transcript.join('\n\n')),
          usage,
          model: step.model,
          durationMs: Date.now() - started,
          turns: final.num_turns,
          toolCalls,
          ...(target.simulated ? {} : { costUsd: final.total_cost_usd }),
        };
      } catch (error) {
        if (step.signal.aborted) throw step.signal.reason ?? error;
        if (error instanceof AgentStuckError) throw error;
        if (error instanceof LlmError || error instanceof EngineFailedError) throw error;
        throw engineFailure(
          'Claude Code',
          proc,
          relay.stats,
          clean,
          (error as Error)?.message ?? String(error),
        );
      } finally {
        step.signal.removeEventListener('abort', onCancel);
        abort.abort();
        await proc?.stop();
        await relay.close();
      }
    },
  };
}
