import { vi } from 'vitest';

export interface StubRequest {
  method: string;
  /** Path and query, as the app asked for them. */
  url: string;
  body: unknown;
}

/** An answer: a JSON body (200), or a whole Response. A function answers each request anew. */
type Answer = unknown | ((request: StubRequest) => unknown);

/**
 * The browser's fetch, answered at the boundary: `'GET /api/tasks'` → a body shaped as the server
 * sends it. A request nothing answers fails the test with a 599, so a missing route is loud.
 */
export function stubFetch(routes: Record<string, Answer>) {
  const requests: StubRequest[] = [];
  const fetch = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = String(input);
    const method = init.method ?? 'GET';
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const request = { method, url, body };
    requests.push(request);
    const path = url.split('?')[0];
    const answer = routes[`${method} ${path}`];
    if (answer === undefined)
      return new Response(JSON.stringify({ error: 'NO_STUB', message: url }), { status: 599 });
    const value = typeof answer === 'function' ? await answer(request) : answer;
    if (value instanceof Response) return value;
    return new Response(JSON.stringify(value), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetch);
  return { requests, fetch };
}
