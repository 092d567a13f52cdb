import { useQuery } from '@tanstack/react-query';
import type { AgentToken } from '@/contracts/coordination';
import { apiRequest } from '@/web/lib/api-client';

export const agentTokensQueryKey = ['agent-tokens'] as const;

/** The user's agent tokens, oldest first, without their secrets. */
export async function getAgentTokens(): Promise<AgentToken[]> {
  const { tokens } = await apiRequest<{ tokens: AgentToken[] }>('/api/tokens');
  return tokens;
}

export function useAgentTokens() {
  return useQuery({ queryKey: agentTokensQueryKey, queryFn: getAgentTokens });
}
