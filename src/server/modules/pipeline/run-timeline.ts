import type { AgentType } from '@/contracts/pipeline.js';
import type { LoopEvents } from '../agent-tools/agent-loop.js';
import { timelineChange } from '../agent-tools/coder-engine.js';
import { sanitizeAgentOutput } from './agents/agent-base.js';
import type { DriverEnv, RunContext } from './run-context.js';

/** The timeline of an agent's step, on the task's stream: prose as chunks, tool calls as typed events. */
export function timelineEvents(env: DriverEnv, ctx: RunContext, agent: AgentType): LoopEvents {
  const { taskId, runId } = ctx;
  const live = () => !ctx.handle.cancelled;
  return {
    onText: (chunk) => {
      if (live()) env.transitions.events.chunk(taskId, runId, agent, sanitizeAgentOutput(chunk));
    },
    onToolCall: async ({ callId, tool, input, engine }) => {
      if (!live()) return;
      await env.transitions.events.task(taskId, runId, {
        type: 'agent-tool-call',
        data: {
          runId,
          agent,
          callId,
          tool: sanitizeAgentOutput(tool).slice(0, 100),
          input,
          ...(engine ? { engine } : {}),
          timestamp: env.now(),
        },
      });
    },
    onToolResult: async ({ callId, tool, input, result }) => {
      if (!live()) return;
      const change = result.ok ? timelineChange(tool, input, result.changed) : undefined;
      await env.transitions.events.task(taskId, runId, {
        type: 'agent-tool-result',
        data: {
          runId,
          agent,
          callId,
          ok: result.ok,
          summary: sanitizeAgentOutput(result.summary),
          ...(change ? { change } : {}),
          ...(tool === 'run_check' && result.ok && ctx.cursor.check
            ? { check: { passed: ctx.cursor.check.passed, exitCode: ctx.cursor.check.exitCode } }
            : {}),
          timestamp: env.now(),
        },
      });
    },
  };
}
