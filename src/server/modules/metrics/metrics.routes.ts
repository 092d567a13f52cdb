import { z } from '@hono/zod-openapi';
import type { Registry } from 'prom-client';
import type { AppDeps } from '@/server/deps.js';
import { bearerToken } from '@/server/lib/bearer.js';
import { AppError } from '@/server/lib/errors.js';
import { apiRoute, apiRouter } from '@/server/openapi/route.js';
import { createMetricsRegistry, metricsSnapshot, tokenMatches } from './metrics.js';

const metrics = apiRoute(
  {
    method: 'get',
    path: '/',
    operationId: 'getMetrics',
    tags: ['operations'],
    summary: 'Operational metrics',
    description:
      'For the operator: `Authorization: Bearer <AUTOCODER_METRICS_TOKEN>`. Without a configured token, or without the right one, the route does not exist (404). Prometheus text by default; JSON when `Accept` asks for application/json first.',
    responses: {
      200: {
        description: 'The metrics',
        content: {
          'text/plain': { schema: z.string().openapi({ description: 'Prometheus exposition format 0.0.4' }) },
          'application/json': { schema: z.record(z.string(), z.unknown()) },
        },
      },
    },
  },
  { access: 'metrics-token', errors: ['NOT_FOUND'] },
);

/**
 * GET /api/metrics, for the operator only: `Authorization: Bearer <AUTOCODER_METRICS_TOKEN>`.
 * Without a configured token, or without the right one, it does not exist (404), signed in or not.
 * Prometheus text format by default; JSON when the client asks for application/json first.
 */
export function metricsRoutes(deps: AppDeps, token: string | undefined) {
  let registry: Promise<Registry> | undefined;
  return apiRouter().openapi(metrics, async (c) => {
    const presented = bearerToken(c.req.header('authorization'));
    if (!token || !presented || !tokenMatches(presented, token)) {
      throw new AppError('NOT_FOUND', 'No such API route');
    }
    c.header('Cache-Control', 'no-store');
    if (c.req.header('accept')?.split(',')[0]?.trim().startsWith('application/json')) {
      return c.json(metricsSnapshot(deps), 200);
    }
    registry ??= createMetricsRegistry(deps);
    const ready = await registry;
    return c.text(await ready.metrics(), 200, { 'Content-Type': ready.contentType });
  });
}
