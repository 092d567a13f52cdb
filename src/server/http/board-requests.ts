import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { type ListTasksQuery, listTasksQuerySchema } from '@/contracts/tasks.js';
import type { AppDeps } from '../deps.js';
import { LruCache } from '../lib/lru-cache.js';
import { resolveSession } from '../modules/auth/auth.js';
import { readTaskList } from '../modules/tasks/task-list.js';
import { type HostRules, isOwnHost } from './host-check.js';
import { SESSION_COOKIE } from './middleware.js';
import { writeAnswer } from './raw-answer.js';
import { cookieOf } from './service-requests.js';

const LIST_PATH = '/api/tasks';

/**
 * Query strings already read, with what the route's schema made of them (null: it refused them,
 * and the app answers its 400). A board asks with the same few query strings all day.
 */
const queries = new LruCache<string, ListTasksQuery | null>(1000);

/**
 * The list query in `search` (after the `?`), as the route reads it, or null when this is not for
 * here: a query the schema refuses, a key given twice, or anything percent- or plus-encoded (a
 * search with spaces), whose decoding is left to the app's own reading.
 */
function listQuery(search: string): ListTasksQuery | null {
  const known = queries.get(search);
  if (known !== undefined) return known;
  let query: ListTasksQuery | null = null;
  if (!/[%+]/.test(search)) {
    const params = new URLSearchParams(search);
    const fields = Object.fromEntries(params);
    if (Object.keys(fields).length === [...params.keys()].length) {
      const parsed = listTasksQuerySchema.safeParse(fields);
      query = parsed.success ? parsed.data : null;
    }
  }
  queries.set(search, query);
  return query;
}

/**
 * The node server's request listener, in front of `next`, for the board's list: GET /api/tasks,
 * which every open board sends again each time a card changes (and revalidates with
 * If-None-Match). Answered below Hono, as the agents' calls are (agent-requests.ts), with the same
 * bytes and headers as the app's route (tasks.routes.ts) — the list itself is the same
 * `readTaskList`, serialised once per version.
 *
 * Only what the app would answer the same way is answered here: on the app's own host, with a
 * session, a plain query the route's schema accepts, for a project of the user's. Anything else —
 * no session or an unknown one, a foreign host, a bad query, a project that is not the user's, a
 * database that cannot say — goes to `next` untouched (a GET has no body to have been read), and
 * the app answers it its own way (401, 421, 400, 404, 500).
 */
export function boardRequests(deps: AppDeps, hosts: () => HostRules, next: RequestListener): RequestListener {
  const answer = async (
    req: IncomingMessage,
    res: ServerResponse,
    query: ListTasksQuery,
    rules: HostRules,
  ) => {
    const token = cookieOf(req, SESSION_COOKIE);
    const session = token ? await resolveSession(deps, token).catch(() => null) : null;
    if (!session) return next(req, res);
    const ifNoneMatch = req.headers['if-none-match'];
    let list: Awaited<ReturnType<typeof readTaskList>>;
    try {
      list = await readTaskList(deps, session.user.id, query, ifNoneMatch);
    } catch {
      return next(req, res);
    }
    // What tasks.routes.ts sets, in its words.
    const headers: Record<string, string> = {
      etag: list.etag,
      'cache-control': 'private, no-cache',
      vary: 'Accept-Encoding',
    };
    if (list.notModified) return writeAnswer(res, rules.baseDomain, 304, headers, null);
    headers['content-type'] = 'application/json';
    if (list.gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
      headers['content-encoding'] = 'gzip';
      return writeAnswer(res, rules.baseDomain, 200, headers, list.gzip);
    }
    return writeAnswer(res, rules.baseDomain, 200, headers, list.json);
  };

  return (req, res) => {
    const url = req.url ?? '';
    if (req.method !== 'GET' || !url.startsWith(LIST_PATH) || url.charAt(LIST_PATH.length) !== '?') {
      return next(req, res);
    }
    const query = listQuery(url.slice(LIST_PATH.length + 1));
    const host = req.headers.host;
    const rules = hosts();
    if (!query || !host || !isOwnHost(host, rules)) return next(req, res);
    answer(req, res, query, rules).catch((error: unknown) => {
      if (!req.destroyed) deps.logger.error('board request failed', { error });
      res.destroy();
    });
  };
}
