import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AgentToken } from '@/contracts/coordination';
import { apiRequest } from '@/web/lib/api-client';
import { agentTokensQueryKey } from './get-agent-tokens';

/** Revokes a token: agents using it get 401 from then on. */
export function revokeAgentToken(id: string): Promise<void> {
  return apiRequest<void>(`/api/tokens/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

export function useRevokeAgentToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeAgentToken,
    meta: { errorTitle: 'Could not revoke the token' },
    onSuccess: (_result, id) => {
      queryClient.setQueryData<AgentToken[]>(agentTokensQueryKey, (tokens) =>
        tokens?.filter((t) => t.id !== id),
      );
      void queryClient.invalidateQueries({ queryKey: agentTokensQueryKey });
    },
  });
}
