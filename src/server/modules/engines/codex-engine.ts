import { createInterface } from 'node:readline';
import type { TokenUsage } from '@/contracts/pipeline.js';
import type { CoderEngine, CoderStep, CoderStepResult } from '../agent-tools/coder-engine.js';
import type { ToolResult } from '../agent-tools/tool-types.js';
import { LlmError } from '../llm/provider.js';
import { redactSecrets } from '../llm/redact.js';
import { type CodexEvent, type CodexItem, callOf, resultOf, usageOf } from './codex-events.js';
import type { EngineBinary } from './engine-catalog.js';
import { EngineFailedError, engineFailure } from './engine-errors.js';
import {
  DeferredProcess,
  type EngineSandbox,
  insideAddress,
  LOCK_TOOLS_PORT,
  RELAY_PORT,
} from './engine-process.js';
import { engineInstructions } from './engine-prompt.js';
import { type EngineTarget, PLACEHOLDER_OPENAI_KEY } from './engine-target.js';
import { shownCleanInput } from './engine-timeline.js';
import { createModelRelay } from './model-relay.js';
import { createStepLockMcp, STEP_MCP_NAME } from './step-lock-mcp.js';

/** Where Codex keeps its state inside the sandbox: the sandbox's private /tmp, gone with it. */
const CODEX_HOME = '/tmp/.codex';
/** The variable naming the relay's placeholder credential in Codex's provider entry. */
const CREDENTIAL_VARIABLE = 'CODEX_RELAY_CREDENTIAL';
/** Longest line of Codex's JSON output read; a longer one is skipped. */
const MAX_LINE_CHARS = 4 * 1024 * 1024;

export interface CodexEngineOptions {
  sandbox: EngineSandbox;
  binary: () => Promise<EngineBinary>;
  target: EngineTarget;
}

/** TOML basic string. */
function toml(text: string): string {
  return JSON.stringify(text);
}

/** `codex exec`'s arguments: JSON events, no approvals and no sandbox of its own (ours is the boundary), our endpoint. */
export function codexArgs(baseUrl: string, model: string, lockToolsUrl: string): string[] {
  // Its own retries of a refused request are few: a refused key or a rate limit pauses the run.
  const provider = `{name=${toml('AutoCoder relay')},base_url=${toml(`${baseUrl}/v1`)},env_key=${toml(CREDENTIAL_VARIABLE)},wire_api="responses",request_max_retries=2,stream_max_retries=2}`;
  return [
    'exec',
    '--json',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    '-c',
    'model_provider="autocoder"',
    '-c',
    `model_providers.autocoder=${provider}`,
    '-c',
    'analytics.enabled=false',
    '-c',
    `mcp_servers.${STEP_MCP_NAME}={url=${toml(lockToolsUrl)},startup_timeout_sec=30,tool_timeout_sec=3600}`,
    '-m',
    model,
    '-',
  ];
}

/**
 * Codex as the coder: `codex exec --json` run in the sandbox on the run's worktree, its model
 * reached through the relay (a provider entry of its own, the Responses API), the step on stdin.
 * Its JSON events become the run's timeline. Codex has no hook before an edit: the pipeline's
 * WRITING locks on every changed path, taken before the commit, keep it from another agent's file.
 */
export function createCodexEngine(options: CodexEngineOptions): CoderEngine {
  const { sandbox, target } = options;
  return {
    id: 'codex',
    async run(step: CoderStep): Promise<CoderStepResult> {
      const started = Date.now();
      const binary = await options.binary();
      const relay = createModelRelay(target.relay);
      const lockTools = createStepLockMcp({ worktree: step.worktree, beforeWrite: step.beforeWrite });
      const clean = (text: string) => redactSecrets(text, target.secrets);
      let proc: DeferredProcess | undefined;
      const onCancel = () => void proc?.stop();
      step.signal.addEventListener('abort', onCancel, { once: true });
      try {
        const endpoint = await insideAddress(sandbox, RELAY_PORT, relay);
        const locks = await insideAddress(sandbox, LOCK_TOOLS_PORT, lockTools);
        const relays = [endpoint.relay, locks.relay].filter((r) => r !== undefined);
        proc = new DeferredProcess(
          sandbox.spawn({
            // Codex wants its home to exist; it lives in the sandbox's private /tmp.
            command: [
              '/bin/sh',
              '-c',
              'mkdir -p "$CODEX_HOME" && exec "$@"',
              'codex',
              binary.program,
              ...codexArgs(endpoint.url, step.model, `${locks.url}/mcp`),
            ],
            cwd: step.worktree,
            stdin: 'pipe',
            relays: relays.length > 0 ? relays : undefined,
            agentEnv: { CODEX_HOME, [CREDENTIAL_VARIABLE]: PLACEHOLDER_OPENAI_KEY, NO_COLOR: '1' },
            readOnlyPaths: [...(step.sandboxed?.readOnlyPaths ?? []), binary.packageDir],
            allowedHosts: step.sandboxed?.allowedHosts ?? null,
          }),
        );
        if (step.signal.aborted) proc.kill();
        proc.stdin.end(`${engineInstructions('codex')}\n\n${step.prompt}`);
        const started_ = new Map<string, CodexItem>();
        const messages: string[] = [];
        const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 };
        let turns = 0;
        let toolCalls = 0;
        let failure: string | undefined;
        let completed = false;
        const lines = createInterface({ input: proc.stdout, crlfDelay: Number.POSITIVE_INFINITY });
        for await (const line of lines) {
          if (step.signal.aborted) break;
          if (!line.startsWith('{') || line.length > MAX_LINE_CHARS) continue;
          let event: CodexEvent;
          try {
            event = JSON.parse(line) as CodexEvent;
          } catch {
            continue;
          }
          const item = event.item;
          switch (event.type) {
            case 'item.started': {
              const call = item ? callOf(item) : null;
              if (!item?.id || !call) break;
              started_.set(item.id, item);
              toolCalls++;
              await step.events.onToolCall({
                callId: item.id,
                ...call,
                input: shownCleanInput(call.input, clean),
                engine: 'codex',
              });
              break;
            }
            case 'item.completed': {
              if (!item?.id) break;
              if (item.type === 'agent_message' && item.text) {
                messages.push(clean(item.text));
                step.events.onText(clean(`${item.text}\n`));
                break;
              }
              const call = callOf(item);
              if (!call) break;
              if (!started_.has(item.id)) {
                // Codex reports some items (a file change) only once they are done.
                toolCalls++;
                await step.events.onToolCall({
                  callId: item.id,
                  ...call,
                  input: shownCleanInput(call.input, clean),
                  engine: 'codex',
                });
              }
              started_.delete(item.id);
              const result = resultOf(item);
              const cleaned: ToolResult = result.ok
                ? { ...result, output: clean(result.output), summary: clean(result.summary) }
                : { ...result, error: clean(result.error), summary: clean(result.summary) };
              await step.events.onToolResult({ callId: item.id, ...call, result: cleaned });
              break;
            }
            case 'turn.completed': {
              turns++;
              completed = true;
              const spent = usageOf(event.usage);
              usage.inputTokens += spent.inputTokens;
              usage.outputTokens += spent.outputTokens;
              if (spent.cacheReadTokens)
                usage.cacheReadTokens = (usage.cacheReadTokens ?? 0) + spent.cacheReadTokens;
              break;
            }
            case 'turn.failed':
              failure = event.error?.message ?? 'the turn failed';
              break;
            case 'error':
              failure = event.message ?? failure;
              break;
            default:
              break;
          }
        }
        await proc.ended;
        if (step.signal.aborted) throw step.signal.reason ?? new Error('cancelled');
        if (failure || !completed || proc.exitCode !== 0) {
          throw engineFailure(
            'Codex',
            proc,
            relay.stats,
            clean,
            failure ?? 'it ended without completing its turn',
          );
        }
        const summary = messages.at(-1)?.trim();
        return {
          summary: summary || null,
          transcript: messages.join('\n\n'),
          usage,
          model: step.model,
          durationMs: Date.now() - started,
          turns,
          toolCalls,
        };
      } catch (error) {
        if (step.signal.aborted) throw step.signal.reason ?? error;
        if (error instanceof LlmError || error instanceof EngineFailedError) throw error;
        throw engineFailure('Codex', proc, relay.stats, clean, (error as Error)?.message ?? String(error));
      } finally {
        step.signal.removeEventListener('abort', onCancel);
        await proc?.stop();
        await relay.close();
        await lockTools.close();
      }
    },
  };
}
