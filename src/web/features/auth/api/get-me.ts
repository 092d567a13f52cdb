import { useQuery } from '@tanstack/react-query';
import type { MeResponse, User } from '@/contracts/auth';
import { apiRequest } from '@/web/lib/api-client';

export const meQueryKey = ['auth', 'me'] as const;

/** The signed-in user, or null when there is no session. */
export async function getMe(): Promise<User | null> {
  const { user } = await apiRequest<MeResponse>('/api/auth/me');
  return user;
}

export function useMe() {
  return useQuery({ queryKey: meQueryKey, queryFn: getMe, staleTime: Number.POSITIVE_INFINITY });
}
