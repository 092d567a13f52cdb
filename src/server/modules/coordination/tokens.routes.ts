import { Hono } from 'hono';
import { createTokenSchema } from '@/contracts/coordination.js';
import type { AppDeps, AppEnv } from '@/server/deps.js';
import { readId, readJson } from '@/server/lib/validate.js';
import { createToken, listTokens, revokeToken } from './tokens.js';

/** /api/tokens — the signed-in user's agent tokens. Behind the session middleware. */
export function tokenRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/', async (c) => c.json({ tokens: await listTokens(deps.db, c.var.user.id) }))
    .post('/', async (c) =>
      c.json(await createToken(deps.db, c.var.user.id, await readJson(c, createTokenSchema)), 201),
    )
    .delete('/:id', async (c) => {
      await revokeToken(deps.db, c.var.user.id, readId(c, 'id', 'token'));
      return c.body(null, 204);
    });
}
