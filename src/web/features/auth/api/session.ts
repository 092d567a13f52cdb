import type { QueryClient } from '@tanstack/react-query';
import type { User } from '@/contracts/auth';
import { meQueryKey } from './get-me';

/** Drops whatever a previous user left in the cache, then records who is signed in now. */
export function startSession(queryClient: QueryClient, user: User): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== meQueryKey[0] });
  queryClient.setQueryData(meQueryKey, user);
}

export function endSession(queryClient: QueryClient): void {
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== meQueryKey[0] });
  queryClient.setQueryData(meQueryKey, null);
}
