import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ApiErrorBody } from '../contracts/errors.js';
import type { AppDeps, AppEnv } from './deps.js';
import { declaredLength, MAX_BODY_BYTES } from './http/body-size.js';
import { errorAnswer } from './http/error-answer.js';
import { type HostRules, hostCheck, hostRulesFor } from './http/host-check.js';
import { checkOrigin, requireSession, SESSION_COOKIE } from './http/middleware.js';
import { appSecureHeaders } from './http/secure-headers.js';
import { AppError } from './lib/errors.js';
import { authRoutes } from './modules/auth/auth.routes.js';
import { coordinationRoutes, projectLocksRoutes } from './modules/coordination/coordination.routes.js';
import { locksForGraph } from './modules/coordination/lock-overlay.js';
import { tokenRoutes } from './modules/coordination/tokens.routes.js';
import { engineRoutes } from './modules/engines/engines.routes.js';
import { sseRoutes } from './modules/events/events.routes.js';
import { gitHttpRoutes } from './modules/git-http/git-http.routes.js';
import { graphRoutes } from './modules/graph/graph.routes.js';
import { mcpRoutes } from './modules/mcp/mcp.routes.js';
import { wellKnownRoutes } from './modules/mcp/well-known.routes.js';
import { metricsRoutes } from './modules/metrics/metrics.routes.js';
import { diffRoutes } from './modules/pipeline/diff.routes.js';
import { pipelineRoutes, startPipelineRoute } from './modules/pipeline/pipeline.routes.js';
import { taskReplayStart } from './modules/pipeline/replay-start.js';
import { projectRoutes } from './modules/projects/projects.routes.js';
import { previewHost } from './modules/services/preview.routes.js';
import { isServiceProxyPath, serviceRoutes } from './modules/services/services.routes.js';
import { workspaceRoutes } from './modules/services/workspaces.routes.js';
import { setupRoutes } from './modules/setup/setup.routes.js';
import { taskRoutes } from './modules/tasks/tasks.routes.js';
import { docsRoutes } from './openapi/docs.routes.js';
import { healthRoutes } from './openapi/health.routes.js';
import { apiRouter } from './openapi/route.js';

export { MAX_BODY_BYTES };

export interface AppOptions {
  /** Built web app to serve (dist/web); omitted in API-only tests. */
  webDir?: string | undefined;
  /** The Host headers the app answers to, read per request (the port is known once listening). Default: loopback names on port 80. */
  hosts?: () => HostRules;
  /** AUTOCODER_METRICS_TOKEN: the bearer token of GET /api/metrics; unset, the route does not exist. */
  metricsToken?: string | undefined;
}

const LOOPBACK_ON_PORT_80 = hostRulesFor({
  publicUrl: undefined,
  baseDomain: 'localhost',
  listenHost: '127.0.0.1',
  port: 80,
});

/** The composition root: every router, the error mapping and the web app, over the given dependencies. */
export function createApp(deps: AppDeps, options: AppOptions = {}) {
  const app = apiRouter();
  const hosts = options.hosts ?? (() => LOOPBACK_ON_PORT_80);
  const baseDomain = () => hosts().baseDomain;

  // Service previews (`{workspace}-svc-{service}.{AUTOCODER_BASE_DOMAIN}`) are the services' own
  // pages, not the app's: they are proxied before any of the app's middleware (their grant
  // cookie is checked there), and never reach its routes.
  app.use('*', previewHost(deps, baseDomain));
  // Then: nothing runs for a request addressed to a foreign host (DNS rebinding).
  app.use('*', hostCheck(hosts));

  // Built at the first request: the base domain is known once the server listens.
  let headers: MiddlewareHandler | undefined;
  app.use('*', (c, next) => {
    headers ??= appSecureHeaders(baseDomain());
    return headers(c, next);
  });

  const limitBody = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
    },
  });
  // Reads carry no body, and asking a request whether it has one builds a whole web Request
  // (undici's, with its Headers and AbortSignal) for it: only the other methods are measured.
  // The service proxy streams bodies of any size to the service, unread: it is not measured either.
  // A declared Content-Length is all there is to check (Node's parser reads exactly that many bytes);
  // Hono's bodyLimit would build the web Request anyway, to ask whether there is a body.
  app.use('/api/*', (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || isServiceProxyPath(c.req.path)) return next();
    const length = declaredLength(c.req.header('content-length'), c.req.header('transfer-encoding'));
    if (length === null) return limitBody(c, next);
    if (length > MAX_BODY_BYTES) {
      throw new AppError('PAYLOAD_TOO_LARGE', `Request body is larger than ${MAX_BODY_BYTES} bytes`);
    }
    return next();
  });
  app.use('/api/*', checkOrigin());

  app.route('/api', healthRoutes(deps));
  app.route(
    '/api',
    docsRoutes(() => apiDocument(app, deps.version)),
  );
  app.route('/api/auth', authRoutes(deps));

  // Agents' routes: a bearer token or a session, checked per route (requireAgent), so public here.
  app.route('/api', coordinationRoutes(deps));
  app.route('/api/metrics', metricsRoutes(deps, options.metricsToken));
  // Last under /api: every request the public routes above did not answer needs a session.
  app.route(
    '/api',
    protectedApi(deps, [
      ['/projects', projectRoutes(deps)],
      ['/projects', projectLocksRoutes(deps)],
      ['/projects', workspaceRoutes(deps)],
      ['/projects', setupRoutes(deps)],
      ['/workspaces', serviceRoutes(deps, { baseDomain })],
      ['/tasks', taskRoutes(deps)],
      ['/tasks', startPipelineRoute(deps.orchestrator)],
      ['/pipeline', pipelineRoutes(deps.orchestrator, deps.events)],
      ['/pipeline', diffRoutes(deps)],
      ['/tokens', tokenRoutes(deps)],
      ['/engines', engineRoutes(deps.engines.catalog)],
      [
        '/sse',
        sseRoutes(deps, {
          log: deps.events,
          hub: deps.sseHub,
          settings: deps.sse,
          shutdown: deps.shutdown,
          replayStart: (taskId) => taskReplayStart(deps, taskId),
        }),
      ],
      ['/graph', graphRoutes(deps, locksForGraph(deps.coordination.locks, deps.now))],
    ]),
  );

  app.all('/api/*', () => {
    throw new AppError('NOT_FOUND', 'No such API route');
  });

  // Not JSON APIs, so plain Hono handlers outside the OpenAPI document (openapi/undeclared.ts).
  // MCP for agents (bearer token only; Host checked above, Origin and body size in the route).
  app.route('/mcp', mcpRoutes(deps));
  // The shared remote: git smart HTTP (Basic auth with an agent token; pushes capped in the route).
  app.route('/git', gitHttpRoutes(deps));
  // A JSON 404 for MCP clients' OAuth discovery, before the web app would answer with its page.
  app.route('/.well-known', wellKnownRoutes());

  if (options.webDir && existsSync(path.join(options.webDir, 'index.html'))) {
    const webDir = options.webDir;
    app.use('/assets/*', serveStatic({ root: webDir }));
    app.use('*', serveStatic({ root: webDir }));
    // Client-side routes (/projects/…, /login) all load the single page.
    app.get('*', async (c) => c.html(await readFile(path.join(webDir, 'index.html'), 'utf8')));
  }

  app.onError((error, c) => {
    const answer = errorAnswer(error, deps.logger, { method: c.req.method, path: c.req.path });
    for (const [name, value] of Object.entries(answer.headers)) c.header(name, value);
    return c.json<ApiErrorBody>(answer.body, answer.status as 400);
  });

  app.notFound((c) => c.json<ApiErrorBody>({ error: 'NOT_FOUND', message: 'Not found' }, 404));

  return app;
}

export type App = ReturnType<typeof createApp>;

/** The OpenAPI 3.1 document of every route declared on the app (all of them: see openapi.test.ts). */
function apiDocument(app: OpenAPIHono<AppEnv>, version: string) {
  app.openAPIRegistry.registerComponent('securitySchemes', 'session', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'Set by POST /api/auth/register and /api/auth/login.',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'agentToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'An agent token (POST /api/tokens).',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'metricsToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'AUTOCODER_METRICS_TOKEN',
  });
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'AutoCoder API',
      version,
      description:
        'Every error answers `{ error, message, ...details }`; each route lists the codes it can answer. Writes from a browser must carry our Origin.',
    },
  });
}

/**
 * The API behind a session, mounted at /api after the public routes (health, auth, metrics): the
 * check runs once, here, for every router mounted on it, so a new router cannot forget it. A
 * request without a session answers 401, an unknown route included.
 */
export function protectedApi(
  deps: AppDeps,
  routers: ReadonlyArray<readonly [path: string, router: OpenAPIHono<AppEnv>]>,
) {
  const api = apiRouter();
  api.use('*', requireSession(deps));
  for (const [path, router] of routers) api.route(path, router);
  return api;
}
