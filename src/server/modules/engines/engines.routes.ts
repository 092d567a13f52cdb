import { z } from '@hono/zod-openapi';
import type { EngineInfo, EnginesResponse } from '@/contracts/engines.js';
import { CODER_ENGINES } from '@/contracts/projects.js';
import { apiRoute, apiRouter, jsonResponse } from '@/server/openapi/route.js';
import type { EngineCatalog } from './engine-catalog.js';

const EngineInfoSchema: z.ZodType<EngineInfo> = z
  .object({
    id: z.enum(CODER_ENGINES),
    label: z.string(),
    builtIn: z.boolean(),
    available: z.boolean(),
    reason: z.string().optional().openapi({ description: 'Why it is not available' }),
    install: z.string().optional().openapi({ description: 'How an operator installs it' }),
    version: z.string().optional(),
    endpoint: z.enum(['any', 'anthropic', 'openai-responses']).openapi({
      description:
        'The model API it needs: any provider (built-in), Anthropic Messages (Claude Code), or an OpenAI-compatible Responses API (Codex); the simulator serves both',
    }),
  })
  .openapi('EngineInfo');

const EnginesSchema: z.ZodType<EnginesResponse> = z
  .object({ engines: z.array(EngineInfoSchema) })
  .openapi('Engines');

const list = apiRoute(
  {
    method: 'get',
    path: '/',
    operationId: 'listEngines',
    tags: ['engines'],
    summary: 'The coder engines and whether this server can run each',
    responses: { 200: jsonResponse(EnginesSchema, 'Every coder engine, built-in ones first') },
  },
  { access: 'session' },
);

/** GET /api/engines */
export function engineRoutes(catalog: EngineCatalog) {
  return apiRouter().openapi(list, async (c) => c.json({ engines: await catalog.list() }, 200));
}
