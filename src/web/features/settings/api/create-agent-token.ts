import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { CreatedAgentToken, CreateTokenInput } from '@/contracts/coordination';
import { apiRequest } from '@/web/lib/api-client';
import { agentTokensQueryKey } from './get-agent-tokens';

/** Creates a token; the answer holds its secret, which the server never shows again. */
export function createAgentToken(input: CreateTokenInput): Promise<CreatedAgentToken> {
  return apiRequest<CreatedAgentToken>('/api/tokens', { method: 'POST', body: input });
}

export function useCreateAgentToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createAgentToken,
    meta: { errorTitle: 'Could not create the token' },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: agentTokensQueryKey }),
  });
}
