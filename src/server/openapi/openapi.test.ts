import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '@/contracts/errors.js';
import { isUndeclaredRoute, UNDECLARED_ROUTES } from '@/server/openapi/undeclared.js';
import { createTestApp, signedInClient, type TestApp, TestClient } from '@/server/testing/test-app.js';

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
}
interface Schema {
  $ref?: string;
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  enum?: string[];
}
interface Document {
  openapi: string;
  servers?: { url: string }[];
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
}

let t: TestApp;
let doc: Document;
beforeAll(async () => {
  t = await createTestApp({ app: { metricsToken: 'metrics-token-for-tests' } });
  const res = await new TestClient(t.app).get<Document>('/api/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => t.close());

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the document as "METHOD /path/:param", the way Hono lists its routes. */
function documented(document: Document): Set<string> {
  const found = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) {
      if (METHODS.has(method)) found.add(`${method.toUpperCase()} ${path.replaceAll(/\{([^}]+)\}/g, ':$1')}`);
    }
  }
  return found;
}

/** The codes an error answer lists: `ApiError` narrowed to an enum of codes. */
function codesOf(operation: Operation, status: string): string[] {
  const schema = operation.responses[status]?.content?.['application/json']?.schema;
  const narrowed = schema?.allOf?.find((part) => part.properties?.error);
  return narrowed?.properties?.error?.enum ?? [];
}

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, served without a session', async () => {
    expect(doc.openapi).toBe('3.1.0');
    // The validator dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeTruthy();
  });

  it('declares every route the app serves, and nothing it does not', () => {
    // Middleware (`use`, `all`) is registered under ALL; each declared route once per method, its
    // validators and handler under the same method and path.
    // Outside /api only the web app (when built) and the non-JSON protocols of UNDECLARED_ROUTES.
    const served = new Set(
      t.app.routes
        .filter((route) => route.method !== 'ALL' && !isUndeclaredRoute(route.path))
        .filter((route) => route.path.startsWith('/api/') || route.path !== '*')
        .map((route) => `${route.method} ${route.path}`),
    );
    expect(served.size).toBeGreaterThan(25);
    expect([...documented(doc)].sort()).toEqual([...served].sort());
  });

  it('leaves out only the listed non-JSON protocol routes, each with its reason', () => {
    for (const route of UNDECLARED_ROUTES) {
      expect(route.reason.length, String(route.path)).toBeGreaterThan(20);
      expect(route.path.test('/api/x'), String(route.path)).toBe(false);
      // An entry names a route the app mounts, not one it might someday.
      expect(
        t.app.routes.some((served) => route.path.test(served.path)),
        String(route.path),
      ).toBe(true);
    }
    expect(isUndeclaredRoute('/mcp')).toBe(true);
    expect(isUndeclaredRoute('/git/0b9e1a52-6f4c-4a38-9d4e-2f1c7b8a9e10.git/info/refs')).toBe(true);
    expect(isUndeclaredRoute('/api/mcp')).toBe(false);
    expect(isUndeclaredRoute('/mcpx')).toBe(false);
  });

  it('names every operation with a unique camelCase operationId, for generated clients', () => {
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(ids.length).toBeGreaterThan(25);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-zA-Z0-9]*$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['requestChanges', 'startPipeline', 'listProjectLocks']));
  });

  it('says where the API is, and what each tag an operation names is for', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    const declared = (doc.tags ?? []).map((tag) => tag.name);
    for (const tag of doc.tags ?? []) expect(tag.description?.length, tag.name).toBeGreaterThan(10);
    const used = new Set(
      Object.values(doc.paths).flatMap((item) =>
        Object.values(item).flatMap((operation) => operation.tags ?? []),
      ),
    );
    expect([...used].sort()).toEqual([...declared].sort());
  });

  it('lists, for each route, the error codes it can answer under their statuses', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        const errors = Object.keys(operation.responses).filter((status) => Number(status) >= 400);
        // Every route is behind the host check, and can fail.
        expect(errors, label).toEqual(expect.arrayContaining(['421', '500']));
        for (const status of errors) {
          const codes = codesOf(operation, status);
          expect(codes.length, `${label} ${status}`).toBeGreaterThan(0);
          for (const code of codes)
            expect(ERROR_CODES[code as ErrorCode], `${label} ${code}`).toBe(Number(status));
        }
      }
    }
  });

  it('marks the protected routes: a session, and 401 UNAUTHORIZED', () => {
    const publicPaths = /^\/api\/(health|openapi\.json|docs|auth\/|metrics)/;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        if (publicPaths.test(path)) {
          expect(codesOf(operation, '401'), label).not.toContain('UNAUTHORIZED');
          expect(operation.security, label).not.toEqual([{ session: [] }]);
          continue;
        }
        // Agents' routes take a bearer token, or a session as the protected ones.
        const agents = /^\/api\/(check_status|post_status)$/.test(path);
        expect(operation.security, label).toEqual(
          agents ? [{ agentToken: [] }, { session: [] }] : [{ session: [] }],
        );
        expect(codesOf(operation, '401'), label).toEqual(['UNAUTHORIZED']);
      }
    }
  });

  it('names the codes a module answers, and SSE routes as text/event-stream', () => {
    const op = (method: string, path: string) => doc.paths[path]?.[method] as Operation;
    expect(codesOf(op('patch', '/api/tasks/{id}/status'), '400')).toEqual(
      expect.arrayContaining(['VALIDATION_ERROR', 'INVALID_JSON', 'INVALID_TRANSITION']),
    );
    expect(codesOf(op('patch', '/api/tasks/{id}/status'), '404')).toEqual(['TASK_NOT_FOUND']);
    expect(codesOf(op('post', '/api/auth/login'), '429')).toEqual(['RATE_LIMITED']);
    expect(codesOf(op('post', '/api/tasks/{id}/start-pipeline'), '409')).toEqual(['PIPELINE_ACTIVE']);
    expect(codesOf(op('delete', '/api/projects/{id}'), '400')).toContain('LAST_PROJECT');
    for (const path of ['/api/sse/{taskId}', '/api/sse/projects/{projectId}']) {
      expect(Object.keys(op('get', path).responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    }
  });
});

describe('declared input keeps the API’s error answers', () => {
  it('answers a bad path id, a bad query and a bad body with VALIDATION_ERROR and its fields', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const badId = await client.get('/api/tasks/not-a-uuid');
    expect(badId.status).toBe(400);
    expect(badId.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'Invalid task id',
      fields: { id: ['Invalid task id'] },
    });
    const badQuery = await client.get(`/api/tasks?projectId=${projectId}&view=everything`);
    expect(badQuery.status).toBe(400);
    expect(badQuery.body).toMatchObject({
      error: 'VALIDATION_ERROR',
      fields: { view: [expect.any(String)] },
    });
    const badBody = await client.post('/api/tasks', { projectId, title: '' });
    expect(badBody.status).toBe(400);
    expect(badBody.body).toEqual({
      error: 'VALIDATION_ERROR',
      message: 'Invalid input',
      fields: { title: ['Title is required'] },
    });
  });

  it('reads an empty body as {} and refuses a body that is not JSON with 415', async () => {
    const { client, projectId } = await signedInClient(t.app);
    const { body: task } = await client.post<{ id: string }>('/api/tasks', {
      projectId,
      title: 'Empty body',
    });
    const empty = await client.request('POST', `/api/tasks/${task.id}/start-pipeline`, '', {
      'content-type': 'application/json',
    });
    // {} is valid run options; the task is refused for its provider/key, not for its body.
    expect(empty.body).not.toMatchObject({ error: 'INVALID_JSON' });
    expect(empty.body).not.toMatchObject({ error: 'VALIDATION_ERROR' });
    const text = await client.request('POST', '/api/tasks', JSON.stringify({ projectId, title: 'x' }), {
      'content-type': 'text/plain',
    });
    expect(text.status).toBe(415);
    expect(text.body).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
  });
});

describe('GET /api/docs', () => {
  it('answers the reference page, whose scripts are all same-origin, under a policy that allows no other', async () => {
    const res = await t.app.request('http://localhost/api/docs', { headers: { host: 'localhost' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    const sources = [...html.matchAll(/<script\b[^>]*\bsrc="([^"]*)"/g)].map((m) => m[1]);
    expect(sources).toEqual(['/api/docs/scalar.js']);
    expect(html).toContain('/api/openapi.json');
    expect(html).not.toMatch(/https?:\/\//);

    const policy = res.headers.get('content-security-policy') ?? '';
    const scriptSrc = /script-src ([^;]*)/.exec(policy)?.[1]?.split(' ') ?? [];
    const nonce = /<script\b[^>]*\bnonce="([^"]+)"[^>]*>\s*Scalar/.exec(html)?.[1];
    expect(nonce).toBeTruthy();
    expect(scriptSrc.sort()).toEqual(["'self'", `'nonce-${nonce}'`].sort());
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain("default-src 'self'");

    const again = await t.app.request('http://localhost/api/docs', { headers: { host: 'localhost' } });
    expect(again.headers.get('content-security-policy')).not.toContain(`'nonce-${nonce}'`);
  });

  it('serves Scalar’s bundle from the installed package', async () => {
    const res = await t.app.request('http://localhost/api/docs/scalar.js', {
      headers: { host: 'localhost' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    const script = await res.text();
    expect(script.length).toBeGreaterThan(1_000_000);
    expect(script).toContain('createApiReference');
  });

  it('leaves the app’s policy on every other answer', async () => {
    const res = await t.app.request('http://localhost/api/health', { headers: { host: 'localhost' } });
    expect(res.headers.get('content-security-policy')).not.toContain('script-src');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
  });
});
