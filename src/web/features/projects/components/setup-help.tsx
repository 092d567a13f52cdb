import { Button } from '@/web/components/ui/button';
import { formatBytes } from '@/web/lib/format';
import { useClearSetupCache } from '../api/clear-setup-cache';
import { useProjectSetup } from '../api/get-project-setup';

/**
 * Under the setup command: what AutoCoder proposes from the repository's lockfiles while the field
 * is empty (Accept fills the field; nothing runs until the settings are saved), and the project's
 * dependency cache with a way to clear it. Absent while the server has not answered (or cannot).
 */
export function SetupHelp({
  projectId,
  empty,
  onAccept,
}: {
  projectId: string;
  empty: boolean;
  onAccept: (command: string) => void;
}) {
  const setup = useProjectSetup(projectId);
  const clearCache = useClearSetupCache();
  const info = setup.data;
  if (!info) return null;
  const { proposal, cache } = info;
  const entries = cache.entries.length;
  return (
    <div className="-mt-2 flex flex-col gap-2">
      {proposal && empty && (
        <div
          className="flex flex-wrap items-center gap-2 rounded-md border border-sky-200 bg-sky-50 px-2.5 py-1.5 text-xs text-sky-900"
          data-testid="setup-proposal"
        >
          <span className="min-w-0 flex-1">
            Proposed from {proposal.because}:{' '}
            <code className="rounded bg-white px-1 py-0.5 font-mono ring-1 ring-sky-200">
              {proposal.command}
            </code>
          </span>
          <Button size="sm" onClick={() => onAccept(proposal.command)} data-testid="setup-accept">
            Accept
          </Button>
        </div>
      )}
      <div className="flex flex-wrap items-center gap-2 text-xs text-zinc-600" data-testid="setup-cache">
        <span
          className="min-w-0 flex-1"
          title={`All projects together may keep ${formatBytes(cache.totalMaxBytes)}.`}
        >
          Dependency cache: {formatBytes(cache.bytes)} of {formatBytes(cache.maxBytes)} ·{' '}
          {entries === 1 ? '1 entry' : `${entries} entries`}
        </span>
        <Button
          size="sm"
          loading={clearCache.isPending}
          disabled={entries === 0 && cache.bytes === 0}
          onClick={() => clearCache.mutate(projectId)}
          data-testid="setup-cache-clear"
        >
          Clear
        </Button>
      </div>
    </div>
  );
}
