import { Hono } from 'hono';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { watchHeads } from '../graph/head-moved.js';
import { gitAccess } from './git-access.js';
import { runGitBackend } from './git-backend.js';
import { pushOptions } from './push-policy.js';

/** `/git/<projectId>.git/<smart-HTTP path>`: the only paths served (no dumb protocol, nothing else). */
const GIT_PATH =
  /^\/git\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.git(\/info\/refs|\/git-upload-pack|\/git-receive-pack|\/HEAD)$/i;

const challenge = () =>
  new Response('Authentication required: an agent token as the password (Settings → Agent tokens)\n', {
    status: 401,
    headers: { 'WWW-Authenticate': 'Basic realm="AutoCoder", charset="UTF-8"' },
  });

const notFound = () => new Response('Repository not found\n', { status: 404 });

/**
 * The shared remote: every project's repository over git smart HTTP, by `git http-backend`.
 * An agent token is the password (401 otherwise); another user's project, or none, is 404.
 * Clone, fetch and push; a push to the checked-out branch updates AutoCoder's working tree.
 * A push goes through our pre-receive hook (push-policy.ts): objects past the caps, and a force-push
 * or deletion of a protected branch, are refused before anything is stored.
 */
export function gitHttpRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().all('/*', async (c) => {
    const match = GIT_PATH.exec(c.req.path);
    if (!match?.[1] || !match[2]) return notFound();
    const access = await gitAccess(deps, c.req.header('authorization'), match[1].toLowerCase());
    if (!access.ok) return access.reason === 'unauthorized' ? challenge() : notFound();
    const { agent, project } = access;
    const url = new URL(c.req.url);
    const push =
      match[2] === '/git-receive-pack' && c.req.method === 'POST'
        ? await pushOptions(deps, project).catch((error: unknown) => {
            deps.logger.error('a push was refused: its policy could not be set up', { error });
            return null;
          })
        : undefined;
    if (push === null) return new Response('Pushes are not available on this server\n', { status: 503 });
    // A push moves branches: the project's stream says which, and their graphs are brought up to date.
    const onExit = match[2] === '/git-receive-pack' ? await watchHeads(deps, project) : undefined;
    return runGitBackend({
      repoPath: project.repoPath,
      subPath: match[2],
      method: c.req.method,
      query: url.search.slice(1),
      headers: c.req.raw.headers,
      body: c.req.method === 'GET' || c.req.method === 'HEAD' ? null : c.req.raw.body,
      remoteUser: agent.id,
      signal: c.req.raw.signal,
      ...(onExit ? { onExit } : {}),
      ...push,
    });
  });
}
