import http from 'node:http';

export const SESSION_COOKIE = 'autocoder_session';

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  body?: string;
  /** Socket inactivity limit; the request fails with ETIMEDOUT past it. */
  timeoutMs?: number;
}

/** One HTTP request to 127.0.0.1:port, body read in full. `agent: false` opens a fresh connection. */
export function httpRequest(
  agent: http.Agent | false,
  port: number,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<HttpResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.setTimeout(options.timeoutMs ?? 30_000, () => {
      req.destroy(Object.assign(new Error(`${method} ${path} timed out`), { code: 'ETIMEDOUT' }));
    });
    req.end(options.body);
  });
}

/**
 * A browser-like client of a running server: keeps its session cookie, sends JSON, and sends our
 * Origin on writes (the server compares it with Host).
 */
export class BenchClient {
  cookie = '';
  /** An Authorization header to send (the operator's bearer token of /api/metrics). */
  authorization = '';

  constructor(
    private readonly agent: http.Agent | false,
    readonly port: number,
  ) {}

  headers(method: string, hasBody: boolean): Record<string, string> {
    return {
      accept: 'application/json',
      ...(method === 'GET' || method === 'HEAD' ? {} : { origin: `http://127.0.0.1:${this.port}` }),
      ...(this.cookie ? { cookie: this.cookie } : {}),
      ...(this.authorization ? { authorization: this.authorization } : {}),
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
    };
  }

  async request(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
  ): Promise<HttpResponse> {
    const res = await httpRequest(this.agent, this.port, method, path, {
      headers: { ...this.headers(method, body !== undefined), ...extraHeaders },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    this.takeCookie(res);
    return res;
  }

  /** Keeps the session cookie from a Set-Cookie header (cleared by Max-Age=0 or an empty value). */
  takeCookie(res: HttpResponse): void {
    for (const line of res.headers['set-cookie'] ?? []) {
      const pair = line.split(';')[0] ?? '';
      if (!pair.startsWith(`${SESSION_COOKIE}=`)) continue;
      this.cookie = pair.endsWith('=') || /max-age=0/i.test(line) ? '' : pair;
    }
  }

  /** A request whose answer must have `expected` status; returns the parsed JSON body. */
  async json<T>(method: string, path: string, body: unknown, expected: number): Promise<T> {
    const res = await this.request(method, path, body);
    const text = res.body.toString('utf8');
    if (res.status !== expected) {
      throw new Error(
        `${method} ${path} answered ${res.status} (expected ${expected}): ${text.slice(0, 300)}`,
      );
    }
    return (text ? JSON.parse(text) : null) as T;
  }
}

/** Registers an account and returns the id of the default project every new account gets. */
export async function registerWithProject(
  client: BenchClient,
  email: string,
  password: string,
): Promise<string> {
  await client.json('POST', '/api/auth/register', { email, password }, 201);
  const { projects } = await client.json<{ projects: { id: string }[] }>(
    'GET',
    '/api/projects',
    undefined,
    200,
  );
  const projectId = projects[0]?.id;
  if (!projectId) throw new Error(`the new account ${email} has no project`);
  return projectId;
}
