import type { AppDeps } from '@/server/deps.js';
import { apiRoute, apiRouter, jsonResponse } from './route.js';
import { HealthSchema } from './schemas.js';

const health = apiRoute(
  {
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    tags: ['operations'],
    summary: 'Is the server up',
    responses: { 200: jsonResponse(HealthSchema, 'Up, with its version and database kind') },
  },
  { access: 'public' },
);

/** GET /api/health — public, for load balancers and the start script. */
export function healthRoutes(deps: AppDeps) {
  return apiRouter().openapi(health, (c) =>
    c.json({ status: 'ok' as const, version: deps.version, database: deps.dbKind }, 200),
  );
}
