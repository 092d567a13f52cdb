import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { AuthResponse, LoginInput } from '@/contracts/auth';
import { apiRequest } from '@/web/lib/api-client';
import { startSession } from './session';

export function login(input: LoginInput): Promise<AuthResponse> {
  return apiRequest<AuthResponse>('/api/auth/login', { method: 'POST', body: input });
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: login,
    meta: { errorTitle: 'Could not sign in' },
    onSuccess: ({ user }) => startSession(queryClient, user),
  });
}
