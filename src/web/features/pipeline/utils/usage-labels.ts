import type { AgentCallUsage, TokenUsage } from '@/contracts/pipeline';
import { formatCost, formatCount } from './run-labels';

const plural = (count: number, one: string) => `${formatCount(count)} ${one}${count === 1 ? '' : 's'}`;

/** "(12,000 cached)" when some of the input came from the provider's prompt cache; '' otherwise. */
export function cachedLabel(usage: TokenUsage): string {
  const read = usage.cacheReadTokens ?? 0;
  return read > 0 ? `(${formatCount(read)} cached)` : '';
}

/**
 * What one agent step spent, as the pieces of its line: tool calls and turns (a tool loop), tokens
 * with the cached share, its estimated cost and its time.
 */
export function stepUsageParts(call: AgentCallUsage): string[] {
  const parts: string[] = [];
  if (call.toolCalls !== undefined) parts.push(plural(call.toolCalls, 'tool call'));
  if (call.turns !== undefined) parts.push(plural(call.turns, 'turn'));
  const cached = cachedLabel(call);
  parts.push(`${formatCount(call.inputTokens)} in${cached ? ` ${cached}` : ''}`);
  parts.push(`${formatCount(call.outputTokens)} out`);
  parts.push(`${formatCost(call.costUsd)} est.`);
  parts.push(`${(call.durationMs / 1000).toFixed(1)} s`);
  return parts;
}
