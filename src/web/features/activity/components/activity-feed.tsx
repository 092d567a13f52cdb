import { useProjectLocks } from '../api/get-project-locks';
import type { ActivityEntry } from '../stores/activity-reducer';
import { useActivityEntries } from '../stores/activity-store';

const VERB: Record<ActivityEntry['type'], string> = {
  'lock-taken': 'locked',
  'lock-refused': 'was refused',
  'lock-released': 'released',
  'lock-expired': 'lost to expiry',
};

const TONE: Record<ActivityEntry['type'], string> = {
  'lock-taken': 'border-l-violet-400',
  'lock-refused': 'border-l-amber-400',
  'lock-released': 'border-l-emerald-400',
  'lock-expired': 'border-l-zinc-300',
};

const timeOf = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

function FeedEntry({ entry }: { entry: ActivityEntry }) {
  const what =
    entry.type === 'lock-taken' && entry.status ? `${VERB[entry.type]} (${entry.status})` : VERB[entry.type];
  const files = entry.type === 'lock-refused' && entry.conflicts?.length ? entry.conflicts : entry.files;
  return (
    <li
      className={`border-l-2 py-1.5 pl-2 text-xs ${TONE[entry.type]}`}
      data-testid="activity-entry"
      data-type={entry.type}
    >
      <p className="text-zinc-800">
        <span className="font-medium">{entry.agent.name}</span> {what}{' '}
        <span className="font-mono break-all text-zinc-600">{files.join(', ')}</span>
        {entry.type === 'lock-refused' && entry.holder ? <span> (held by {entry.holder})</span> : null}
      </p>
      <p className="text-zinc-600 italic break-words">“{entry.message}”</p>
      <p className="text-[11px] text-zinc-400">
        <time dateTime={new Date(entry.timestamp).toISOString()}>{timeOf(entry.timestamp)}</time> ·{' '}
        {entry.branch}
      </p>
    </li>
  );
}

/**
 * The project's live activity: every lock taken, refused, released and expired, with each agent's
 * message, newest first, as the project's stream tells it from the moment the board opened. It also
 * loads the locks held at that moment, for the cards' lock badges.
 */
export function ActivityFeed({ projectId }: { projectId: string }) {
  useProjectLocks(projectId);
  const entries = useActivityEntries(projectId);
  return (
    <aside
      aria-label="Activity"
      className="hidden min-h-0 w-72 shrink-0 flex-col border-l border-zinc-200 bg-zinc-50/60 lg:flex"
      data-testid="activity-feed"
    >
      <h2 className="px-3 pt-3 pb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">Activity</h2>
      {entries.length === 0 ? (
        <p className="px-3 text-xs text-zinc-500">
          No agent activity yet. Locks taken and released appear here live.
        </p>
      ) : (
        <ol className="min-h-0 flex-1 space-y-1 overflow-y-auto px-3 pb-3">
          {entries.map((entry) => (
            <FeedEntry key={entry.key} entry={entry} />
          ))}
        </ol>
      )}
    </aside>
  );
}
