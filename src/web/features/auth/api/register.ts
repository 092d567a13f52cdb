import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AuthResponse, RegisterInput } from '@/contracts/auth';
import { apiRequest } from '@/web/lib/api-client';
import { startSession } from './session';

export function register(input: RegisterInput): Promise<AuthResponse> {
  return apiRequest<AuthResponse>('/api/auth/register', { method: 'POST', body: input });
}

export function useRegister() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: register,
    meta: { errorTitle: 'Could not create the account' },
    onSuccess: ({ user }) => startSession(queryClient, user),
  });
}
