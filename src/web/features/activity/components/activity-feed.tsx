import { type UIEvent, useMemo } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useProjectActivity } from '../api/get-project-activity';
import { useProjectLocks } from '../api/get-project-locks';
import { type ActivityEntry, entryOf, mergeEntries } from '../stores/activity-reducer';
import { useActivityEntries, useHeldLocks } from '../stores/activity-store';

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

/** How close to the end of the list (px) a scroll loads the next older page. */
const LOAD_OLDER_MARGIN_PX = 48;

const timeOf = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

/** A name, linked to its task's drawer on the board (`?task=`) when the agent is a pipeline run. */
function AgentName({
  name,
  taskId,
  onOpenTask,
}: {
  name: string;
  taskId: string | undefined;
  onOpenTask: (() => void) | undefined;
}) {
  const [searchParams] = useSearchParams();
  if (!taskId) return <span className="font-medium">{name}</span>;
  const next = new URLSearchParams(searchParams);
  next.set('task', taskId);
  return (
    <Link
      to={{ search: `?${next}` }}
      onClick={onOpenTask}
      className="font-medium text-violet-700 underline-offset-2 hover:underline"
      data-testid="activity-task-link"
    >
      {name}
    </Link>
  );
}

function FeedEntry({
  entry,
  taskOf,
  onOpenTask,
}: {
  entry: ActivityEntry;
  taskOf: (agentId: string) => string | undefined;
  onOpenTask: (() => void) | undefined;
}) {
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
        <AgentName
          name={entry.agent.name}
          taskId={entry.taskId ?? taskOf(entry.agent.id)}
          onOpenTask={onOpenTask}
        />{' '}
        {what} <span className="font-mono break-all text-zinc-600">{files.join(', ')}</span>
        {entry.type === 'lock-refused' && entry.holder ? (
          <span>
            {' '}
            (held by{' '}
            <AgentName
              name={entry.holderName ?? entry.holder}
              taskId={entry.holderTaskId ?? taskOf(entry.holder)}
              onOpenTask={onOpenTask}
            />
            )
          </span>
        ) : null}
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
 * The project's activity: every lock taken, refused, released and expired, with each agent's
 * message, newest first. The recent history is loaded when the board opens (and older pages when
 * the list is scrolled to its end); the project's stream adds what happens next. It also loads the
 * locks held at that moment, for the cards' lock badges. A pipeline run is named by its task,
 * linked to the task's drawer.
 *
 * As an `aside` it is the column beside the board from `lg` up; as a `sheet` it fills the Activity
 * sheet that smaller screens open instead (which names it, and closes when a task is opened).
 */
export function ActivityFeed({
  projectId,
  variant = 'aside',
  onOpenTask,
}: {
  projectId: string;
  variant?: 'aside' | 'sheet';
  /** Called when a task's link is followed. */
  onOpenTask?: () => void;
}) {
  useProjectLocks(projectId);
  const live = useActivityEntries(projectId);
  const held = useHeldLocks(projectId);
  const history = useProjectActivity(projectId);
  const pages = history.data?.pages;
  const older = useMemo(
    () => (pages ?? []).flatMap((page) => page.events.map((event) => entryOf(event, String(event.id)))),
    [pages],
  );
  const entries = useMemo(() => mergeEntries(live, older), [live, older]);
  const taskOf = (agentId: string) => held[agentId]?.taskId;
  const canLoadOlder = history.hasNextPage && !history.isFetchingNextPage;
  const loadOlder = () => {
    if (canLoadOlder) void history.fetchNextPage();
  };
  const onScroll = (event: UIEvent<HTMLOListElement>) => {
    const list = event.currentTarget;
    if (list.scrollTop + list.clientHeight >= list.scrollHeight - LOAD_OLDER_MARGIN_PX) loadOlder();
  };
  return (
    <aside
      aria-label="Activity"
      className={
        variant === 'aside'
          ? 'hidden min-h-0 w-72 shrink-0 flex-col border-l border-zinc-200 bg-zinc-50/60 lg:flex'
          : 'flex min-h-0 min-w-0 flex-1 flex-col'
      }
      data-testid="activity-feed"
    >
      {variant === 'aside' && (
        <h2 className="px-3 pt-3 pb-2 text-xs font-semibold tracking-wide text-zinc-500 uppercase">
          Activity
        </h2>
      )}
      {entries.length === 0 ? (
        <p className="px-3 text-xs text-zinc-500">
          {history.isPending
            ? 'Loading activity…'
            : 'No agent activity yet. Locks taken and released appear here live.'}
        </p>
      ) : (
        <ol
          className="min-h-0 flex-1 space-y-1 overflow-y-auto px-3 pb-3"
          onScroll={onScroll}
          data-testid="activity-list"
        >
          {entries.map((entry) => (
            <FeedEntry key={entry.key} entry={entry} taskOf={taskOf} onOpenTask={onOpenTask} />
          ))}
          {history.hasNextPage ? (
            <li className="pt-1">
              <button
                type="button"
                className="text-xs text-zinc-500 underline-offset-2 hover:underline disabled:opacity-60"
                onClick={loadOlder}
                disabled={!canLoadOlder}
              >
                {history.isFetchingNextPage ? 'Loading older…' : 'Load older'}
              </button>
            </li>
          ) : null}
        </ol>
      )}
      {history.isError ? (
        <p className="px-3 pb-3 text-xs text-red-600" role="alert">
          The earlier activity could not be loaded.
        </p>
      ) : null}
    </aside>
  );
}
