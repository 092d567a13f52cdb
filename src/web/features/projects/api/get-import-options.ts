import { useQuery } from '@tanstack/react-query';
import type { ImportOptions } from '@/contracts/projects';
import { apiRequest } from '@/web/lib/api-client';

/** What the import dialog may offer on this server (local paths only when the operator allows them). */
export function getImportOptions(): Promise<ImportOptions> {
  return apiRequest<ImportOptions>('/api/projects/import-options');
}

export function useImportOptions() {
  // The operator's setting changes only with a restart.
  return useQuery({
    queryKey: ['projects', 'import-options'],
    queryFn: getImportOptions,
    staleTime: Infinity,
  });
}
