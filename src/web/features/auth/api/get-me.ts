import { useQuery } from '@tanstack/react-query';
import type { AuthResponse, User } from '../../../../contracts/auth';
import { apiRequest, isApiError } from '../../../lib/api-client';

export const meQueryKey = ['auth', 'me'] as const;

/** The signed-in user, or null when there is no session. */
export async function getMe(): Promise<User | null> {
  try {
    const { user } = await apiRequest<AuthResponse>('/api/auth/me', { expectUnauthorized: true });
    return user;
  } catch (error) {
    if (isApiError(error) && error.status === 401) return null;
    throw error;
  }
}

export function useMe() {
  return useQuery({ queryKey: meQueryKey, queryFn: getMe, staleTime: Number.POSITIVE_INFINITY });
}
