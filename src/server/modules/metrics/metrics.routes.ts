import { Hono } from 'hono';
import type { Registry } from 'prom-client';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { AppError } from '@/server/lib/errors.js';
import { createMetricsRegistry, metricsSnapshot, tokenMatches } from './metrics.js';

/**
 * GET /api/metrics, for the operator only: `Authorization: Bearer <AUTOCODER_METRICS_TOKEN>`.
 * Without a configured token, or without the right one, it does not exist (404), signed in or not.
 * Prometheus text format by default; JSON when the client asks for application/json first.
 */
export function metricsRoutes(deps: AppDeps, token: string | undefined) {
  let registry: Promise<Registry> | undefined;
  return new Hono<AppEnv>().get('/', async (c) => {
    const presented = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!token || !presented || !tokenMatches(presented, token)) {
      throw new AppError('NOT_FOUND', 'No such API route');
    }
    c.header('Cache-Control', 'no-store');
    if (c.req.header('accept')?.split(',')[0]?.trim().startsWith('application/json')) {
      return c.json(metricsSnapshot(deps));
    }
    registry ??= createMetricsRegistry(deps);
    const ready = await registry;
    return c.body(await ready.metrics(), 200, { 'Content-Type': ready.contentType });
  });
}
