import type {
  AgentLogData,
  AgentToolCallData,
  AgentToolResultData,
  AgentType,
  UsageData,
} from '@/contracts/pipeline';
import type { AgentLogEntry, RunLogs, ToolEntry } from './run-state';

/**
 * Arrays made during one `reduceEvents` call: appended to (and patched) in place, so a replay of
 * thousands of events stays linear. An array not in the set belongs to an earlier state and is
 * copied before its first change.
 */
export type Owned = Set<unknown[]>;

/** The agent's timeline, ready to be changed in place. */
function own(logs: RunLogs, agent: AgentType, owned: Owned): { logs: RunLogs; entries: AgentLogEntry[] } {
  const current = logs[agent];
  if (owned.has(current)) return { logs, entries: current };
  const entries = [...current];
  owned.add(entries);
  return { logs: { ...logs, [agent]: entries }, entries };
}

const AGENTS: readonly string[] = ['planner', 'coder', 'reviewer'];
const agentOf = (agent: unknown): AgentType | null =>
  AGENTS.includes(agent as string) ? (agent as AgentType) : null;

export function appendProse(logs: RunLogs, data: AgentLogData, id: number, owned: Owned): RunLogs {
  const agent = agentOf(data.agent);
  if (!agent) return logs;
  const next = own(logs, agent, owned);
  next.entries.push({ kind: 'prose', id, chunk: data.chunk, timestamp: data.timestamp });
  return next.logs;
}

const objectOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/** The checks a new check would come after: an open one (no result yet) takes the next output. */
function checksBefore(logs: RunLogs): number {
  const last = logs.checks.at(-1);
  return last && last.result === null ? logs.checks.length - 1 : logs.checks.length;
}

export function appendToolCall(logs: RunLogs, data: AgentToolCallData, id: number, owned: Owned): RunLogs {
  const agent = agentOf(data.agent);
  if (!agent) return logs;
  const next = own(logs, agent, owned);
  next.entries.push({
    kind: 'tool',
    id,
    callId: String(data.callId),
    tool: typeof data.tool === 'string' ? data.tool : '',
    input: objectOf(data.input),
    ...(data.engine === 'claude-code' || data.engine === 'codex' ? { engine: data.engine } : {}),
    timestamp: data.timestamp,
    result: null,
    checksBefore: checksBefore(logs),
    checkIndex: null,
  });
  return next.logs;
}

/** Where the call of `callId` is: results usually follow their calls closely, so the search runs backwards. */
function findCall(entries: readonly AgentLogEntry[], callId: string): number {
  for (let index = entries.length - 1; index >= 0; index--) {
    const entry = entries[index];
    if (entry?.kind === 'tool' && entry.callId === callId) return index;
  }
  return -1;
}

/**
 * A call's result turns its line from pending to done (or failed). A run_check's line learns which
 * check it ran: the latest one, when the run has had a check since the call. A result whose call
 * was never seen stands as a line of its own.
 */
export function applyToolResult(logs: RunLogs, data: AgentToolResultData, id: number, owned: Owned): RunLogs {
  const agent = agentOf(data.agent);
  if (!agent) return logs;
  const callId = String(data.callId);
  const at = findCall(logs[agent], callId);
  const call: ToolEntry =
    at >= 0
      ? (logs[agent][at] as ToolEntry)
      : {
          kind: 'tool',
          id,
          callId,
          tool: data.check ? 'run_check' : '',
          input: {},
          timestamp: data.timestamp,
          result: null,
          checksBefore: checksBefore(logs),
          checkIndex: null,
        };
  const ranCheck = call.tool === 'run_check' || data.check !== undefined;
  const latestCheck = logs.checks.length - 1;
  const done: ToolEntry = {
    ...call,
    result: data,
    checkIndex: ranCheck && latestCheck >= call.checksBefore ? latestCheck : null,
  };
  const next = own(logs, agent, owned);
  if (at >= 0) next.entries[at] = done;
  else next.entries.push(done);
  return next.logs;
}

export function appendUsage(logs: RunLogs, data: UsageData, id: number, owned: Owned): RunLogs {
  const agent = agentOf(data.call?.agent);
  if (!agent) return logs;
  const next = own(logs, agent, owned);
  next.entries.push({ kind: 'usage', id, call: data.call, timestamp: data.timestamp });
  return next.logs;
}
