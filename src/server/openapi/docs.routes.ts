import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from '@hono/zod-openapi';
import { Scalar } from '@scalar/hono-api-reference';
import type { AppEnv } from '@/server/deps.js';
import { completeDocument } from './document.js';
import { apiRoute, apiRouter } from './route.js';

const tags = ['documentation'];
const html = (description: string) => ({
  200: { description, content: { 'text/html': { schema: z.string() } } },
});

const documentRoute = apiRoute(
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    tags,
    summary: 'This document',
    description: 'OpenAPI 3.1: every route of the API, its input, its answers and its error codes.',
    responses: {
      200: {
        description: 'The OpenAPI document',
        content: { 'application/json': { schema: z.looseObject({}) } },
      },
    },
  },
  { access: 'public' },
);

const referenceRoute = apiRoute(
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiReference',
    tags,
    summary: 'The API reference page (Scalar)',
    responses: html('A page that renders this document'),
  },
  { access: 'public' },
);

const bundleRoute = apiRoute(
  {
    method: 'get',
    path: '/docs/scalar.js',
    operationId: 'getApiReferenceScript',
    tags,
    summary: 'The reference page’s script',
    description:
      'The standalone bundle of @scalar/api-reference, served from the installed package (no CDN).',
    responses: { 200: { description: 'JavaScript', content: { 'text/javascript': { schema: z.string() } } } },
  },
  { access: 'public' },
);

/** The standalone (UMD) bundle @scalar/api-reference ships; its package does not export the path. */
export const SCALAR_BUNDLE = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@scalar/api-reference')),
  'browser/standalone.js',
);

/**
 * The reference page's policy: the app's, plus the one inline script that starts Scalar, allowed by
 * its nonce. Everything else stays same-origin: the bundle is ours (`/api/docs/scalar.js`), the
 * document is ours, and Scalar's web fonts (a CDN) are turned off — this server may be offline.
 */
const referencePolicy = (nonce: string) =>
  [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/**
 * GET /api/openapi.json, GET /api/docs and its script. Public: the document describes the API, it
 * holds no data. `document` builds it from the app's routes; it is built once, on first request.
 */
export function docsRoutes(document: () => { openapi: string; info: object }) {
  let built: object | undefined;
  let bundle: Promise<Buffer> | undefined;

  return apiRouter()
    .openapi(documentRoute, (c) => {
      built ??= completeDocument(document());
      return c.json(built, 200);
    })
    .openapi(referenceRoute, async (c, next) => {
      const nonce = randomBytes(16).toString('base64');
      // Kept by the app-wide secureHeaders (overwrite: false).
      c.header('Content-Security-Policy', referencePolicy(nonce));
      const page = await Scalar<AppEnv>({
        url: '/api/openapi.json',
        cdn: '/api/docs/scalar.js',
        pageTitle: 'AutoCoder API',
        nonce,
        withDefaultFonts: false,
        telemetry: false,
      })(c, next);
      return page ?? c.notFound(); // the middleware always answers
    })
    .openapi(bundleRoute, async (c) => {
      bundle ??= readFile(SCALAR_BUNDLE);
      return c.body(new Uint8Array(await bundle), 200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=86400',
      });
    });
}
