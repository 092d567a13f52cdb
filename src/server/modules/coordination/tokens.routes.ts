import { z } from '@hono/zod-openapi';
import type { AppDeps } from '@/server/deps.js';
import {
  apiRoute,
  apiRouter,
  jsonRequest,
  jsonResponse,
  noContent,
  uuidParam,
} from '@/server/openapi/route.js';
import {
  AgentTokenSchema,
  CreatedAgentTokenSchema,
  CreateTokenBody,
} from '@/server/openapi/schemas-coordination.js';
import { createToken, listTokens, revokeToken } from './tokens.js';

const tags = ['tokens'];

const list = apiRoute(
  {
    method: 'get',
    path: '/',
    operationId: 'listAgentTokens',
    tags,
    summary: 'Your agent tokens (never their secrets)',
    responses: { 200: jsonResponse(z.object({ tokens: z.array(AgentTokenSchema) }), 'The tokens') },
  },
  { access: 'session' },
);

const create = apiRoute(
  {
    method: 'post',
    path: '/',
    operationId: 'createAgentToken',
    tags,
    summary: 'Create an agent token',
    request: { body: jsonRequest(CreateTokenBody) },
    responses: { 201: jsonResponse(CreatedAgentTokenSchema, 'The token, its secret shown this once') },
  },
  { access: 'session' },
);

const revoke = apiRoute(
  {
    method: 'delete',
    path: '/{id}',
    operationId: 'revokeAgentToken',
    tags,
    summary: 'Revoke an agent token',
    request: { params: z.object({ id: uuidParam('id', 'token') }) },
    responses: { 204: noContent },
  },
  { access: 'session', errors: ['NOT_FOUND'] },
);

/** /api/tokens — the signed-in user's agent tokens. Behind the session middleware. */
export function tokenRoutes(deps: AppDeps) {
  return apiRouter()
    .openapi(list, async (c) => c.json({ tokens: await listTokens(deps.db, c.var.user.id) }, 200))
    .openapi(create, async (c) => c.json(await createToken(deps.db, c.var.user.id, c.req.valid('json')), 201))
    .openapi(revoke, async (c) => {
      await revokeToken(deps.db, c.var.user.id, c.req.valid('param').id);
      return c.body(null, 204);
    });
}
