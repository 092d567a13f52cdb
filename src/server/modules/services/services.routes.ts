import type { HttpBindings } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ErrorCode } from '@/contracts/errors.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { clientIp, isHttps } from '@/server/http/client-ip.js';
import { SESSION_COOKIE } from '@/server/http/middleware.js';
import { AppError } from '@/server/lib/errors.js';
import { apiRoute, apiRouter, jsonResponse } from '@/server/openapi/route.js';
import {
  ServiceListSchema,
  ServicePreviewSchema,
  ServiceSchema,
  ServiceStartingSchema,
  ServiceStoppedSchema,
} from '@/server/openapi/schemas-services.js';
import { SseStream } from '../events/sse-stream.js';
import { pumpServiceOutput } from './output-stream.js';
import { PREVIEW_COOKIE } from './preview-access.js';
import {
  getService,
  issuePreview,
  listServices,
  pathProxyTarget,
  serviceOutput,
  startService,
  stopService,
} from './services.js';

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * The path proxy serves a service on AutoCoder's own origin: its pages run in an opaque origin
 * (CSP sandbox without allow-same-origin), so a service's scripts can neither read AutoCoder's
 * pages nor send requests as the signed-in user. The preview subdomain is the full-fidelity view.
 */
export const PATH_PROXY_HEADERS = {
  'content-security-policy': 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads',
};

const PROXY_PATH = /^\/api\/workspaces\/[^/]+\/services\/[^/]+\/http(\/.*)?$/;

/** A request for the path proxy (its body is streamed to the service, not read by the app). */
export const isServiceProxyPath = (pathname: string) => PROXY_PATH.test(pathname);

/** `/api/workspaces/:w/services/:s/http<rest>` → `<rest>` (at least `/`) with the query string. */
export function forwardedPath(rawUrl: string, forwardedPathHeader: string | undefined): string {
  if (forwardedPathHeader?.startsWith('/')) return forwardedPathHeader;
  const query = rawUrl.indexOf('?');
  const pathname = query === -1 ? rawUrl : rawUrl.slice(0, query);
  const rest = PROXY_PATH.exec(pathname)?.[1] ?? '/';
  return rest + (query === -1 ? '' : rawUrl.slice(query));
}

export interface ServiceRoutesOptions {
  /** AUTOCODER_BASE_DOMAIN, read per request: preview hosts are its subdomains. */
  baseDomain: () => string;
}

const tags = ['services'];
const workspaceParam = z.string().openapi({
  param: { name: 'workspaceId', in: 'path' },
  description: 'The workspace’s ULID (GET /api/projects/{id}/workspaces)',
});
const serviceParam = z.string().openapi({
  param: { name: 'id', in: 'path' },
  description: 'The service’s id: its file name in .discobot/services/',
});
const inWorkspace = { params: z.object({ workspaceId: workspaceParam }) };
const ofService = { params: z.object({ workspaceId: workspaceParam, id: serviceParam }) };
const serviceErrors: ErrorCode[] = ['WORKSPACE_NOT_FOUND', 'service_not_found', 'VALIDATION_ERROR'];

const listRoute = apiRoute(
  {
    method: 'get',
    path: '/{workspaceId}/services',
    operationId: 'listServices',
    tags,
    summary: 'The workspace’s services',
    description:
      'Every service of `.discobot/services/` with its state; `warnings` names the files that are not services or whose front matter was ignored. `path` is the service file, `urlPath` the front matter’s `path`.',
    request: inWorkspace,
    responses: { 200: jsonResponse(ServiceListSchema, 'The services') },
  },
  { access: 'session', errors: ['WORKSPACE_NOT_FOUND'] },
);

const getRoute = apiRoute(
  {
    method: 'get',
    path: '/{workspaceId}/services/{id}',
    operationId: 'getService',
    tags,
    summary: 'One service',
    request: ofService,
    responses: { 200: jsonResponse(ServiceSchema, 'The service') },
  },
  { access: 'session', errors: serviceErrors },
);

const startRoute = apiRoute(
  {
    method: 'post',
    path: '/{workspaceId}/services/{id}/start',
    operationId: 'startService',
    tags,
    summary: 'Start a service',
    description:
      'Answers at once; the process spawns in the sandbox and is `running` once its port accepts connections.',
    request: ofService,
    responses: { 202: jsonResponse(ServiceStartingSchema, 'Starting') },
  },
  {
    access: 'session',
    errors: [
      ...serviceErrors,
      'service_is_passive',
      'service_already_running',
      'TOO_MANY_SERVICES',
      'SANDBOX_DISABLED',
    ],
  },
);

const stopRoute = apiRoute(
  {
    method: 'post',
    path: '/{workspaceId}/services/{id}/stop',
    operationId: 'stopService',
    tags,
    summary: 'Stop a service',
    description: 'SIGTERM to its process group, SIGKILL after 5 s; answers once it has ended.',
    request: ofService,
    responses: { 200: jsonResponse(ServiceStoppedSchema, 'Stopped') },
  },
  { access: 'session', errors: [...serviceErrors, 'service_is_passive', 'service_not_running'] },
);

const outputRoute = apiRoute(
  {
    method: 'get',
    path: '/{workspaceId}/services/{id}/output',
    operationId: 'streamServiceOutput',
    tags,
    summary: 'A service’s output (SSE)',
    description:
      'The stored output, then live `stdout`/`stderr` events until the `exit` event, then `data: [DONE]`.',
    request: ofService,
    responses: {
      200: {
        description: 'The output stream',
        content: {
          'text/event-stream': {
            schema: z.string().openapi({
              description:
                '`data: {"type":"stdout"|"stderr","data","timestamp"}`, `data: {"type":"exit","exitCode","timestamp"}`, `data: [DONE]`',
            }),
          },
        },
      },
    },
  },
  { access: 'session', errors: [...serviceErrors, 'service_is_passive'] },
);

const previewRoute = apiRoute(
  {
    method: 'post',
    path: '/{workspaceId}/services/{id}/preview',
    operationId: 'createServicePreview',
    tags,
    summary: 'A preview link for a service',
    description:
      'The service’s subdomain on AUTOCODER_BASE_DOMAIN with a one-time ticket (60 s); opening it sets a cookie for that host only and redirects to the service’s `urlPath`.',
    request: ofService,
    responses: { 200: jsonResponse(ServicePreviewSchema, 'The preview URL') },
  },
  { access: 'session', errors: [...serviceErrors, 'service_no_port'] },
);

/**
 * `/api/workspaces/:workspaceId/services…` (seed 002), behind the session. The path proxy
 * (`ALL …/http/*`: any method, any path, the service's own answers) is a plain handler, listed in
 * openapi/undeclared.ts.
 */
export function serviceRoutes(deps: AppDeps, options: ServiceRoutesOptions) {
  const ids = (c: Context<AppEnv>) =>
    [c.var.user.id, c.req.param('workspaceId') ?? '', c.req.param('id') ?? ''] as const;

  const proxy = async (c: Context<AppEnv>) => {
    const [userId, workspaceId, serviceId] = ids(c);
    const bindings = c.env as Partial<HttpBindings> | undefined;
    const target = await pathProxyTarget(deps, userId, workspaceId, serviceId);
    if (!bindings?.incoming || !bindings.outgoing) {
      throw new AppError('INTERNAL_ERROR', 'The service proxy runs on the Node server only');
    }
    deps.serviceProxy.web(bindings.incoming, bindings.outgoing, {
      target,
      path: forwardedPath(bindings.incoming.url ?? '/', c.req.header('x-forwarded-path')),
      forwardedHost: c.req.header('host') ?? '',
      proto: isHttps(c, deps.trustProxy) ? 'https' : 'http',
      clientIp: clientIp(c, deps.trustProxy),
      stripCookies: [SESSION_COOKIE, PREVIEW_COOKIE],
      responseHeaders: PATH_PROXY_HEADERS,
    });
    return RESPONSE_ALREADY_SENT;
  };

  const router = apiRouter()
    .openapi(listRoute, async (c) =>
      c.json(await listServices(deps, c.var.user.id, c.req.valid('param').workspaceId), 200),
    )
    .openapi(getRoute, async (c) => c.json(await getService(deps, ...ids(c)), 200))
    .openapi(startRoute, async (c) => {
      const [userId, workspaceId, serviceId] = ids(c);
      await startService(deps, userId, workspaceId, serviceId);
      return c.json({ status: 'starting' as const, serviceId }, 202);
    })
    .openapi(stopRoute, async (c) => {
      const [userId, workspaceId, serviceId] = ids(c);
      await stopService(deps, userId, workspaceId, serviceId);
      return c.json({ status: 'stopped' as const, serviceId }, 200);
    })
    .openapi(outputRoute, async (c) => {
      const feed = await serviceOutput(deps, ...ids(c));
      const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
      const out = new SseStream({
        maxQueueBytes: deps.sse.maxQueueBytes,
        outgoing,
      });
      deps.sseHub.add(out, c.var.user.id, c.var.sessionId);
      pumpServiceOutput(out, feed, { keepaliveMs: deps.sse.keepaliveMs, shutdown: deps.shutdown }).catch(
        (error: unknown) => {
          deps.logger.error('service output stream failed', { error });
          out.end('error');
        },
      );
      return new Response(out.body, { status: 200, headers: SSE_HEADERS });
    })
    .openapi(previewRoute, async (c) => {
      const [userId, workspaceId, serviceId] = ids(c);
      const preview = await issuePreview(
        deps,
        userId,
        { workspaceId, serviceId },
        {
          baseDomain: options.baseDomain(),
          proto: isHttps(c, deps.trustProxy) ? 'https' : 'http',
          appHost: c.req.header('host') ?? new URL(c.req.url).host,
        },
      );
      return c.json(preview, 200);
    });
  router.all('/:workspaceId/services/:id/http', proxy);
  router.all('/:workspaceId/services/:id/http/*', proxy);
  return router;
}
