import { MutationCache, QueryClient } from '@tanstack/react-query';
import { toast } from 'sonner';
import { STATUS_LABELS, type TaskStatus } from '@/contracts/tasks';
import { errorMessage, isApiError } from '../lib/api-client';

function describeFailure(error: unknown): string {
  const message = errorMessage(error);
  if (!isApiError(error) || !error.allowed) return message;
  const allowed = error.allowed.map((status) => STATUS_LABELS[status as TaskStatus] ?? status);
  return `${message} Allowed: ${allowed.length > 0 ? allowed.join(', ') : 'none'}.`;
}

/** Retry once when the server is unreachable or failing; a 4xx answer will not change by asking again. */
function shouldRetry(failureCount: number, error: unknown): boolean {
  if (!isApiError(error)) return failureCount < 1;
  return (error.status === 0 || error.status >= 500) && failureCount < 1;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    mutationCache: new MutationCache({
      // Every failed mutation says so, with the server's own message.
      onError: (error, _variables, _result, mutation) => {
        if (isApiError(error) && error.code === 'UNAUTHORIZED') return;
        toast.error(mutation.meta?.errorTitle ?? 'Something went wrong', {
          description: describeFailure(error),
        });
      },
    }),
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 5_000 },
      mutations: { retry: false },
    },
  });
}
