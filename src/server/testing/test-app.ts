import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type App, type AppOptions, createApp } from '../app.js';
import type { Database } from '../db/client.js';
import type { AppDeps } from '../deps.js';
import { LOOPBACK_NAMES } from '../http/host-check.js';
import { createLogger } from '../lib/logger.js';
import { createMemoryRateLimitStore, DEFAULT_RATE_LIMITS, type RateLimits } from '../lib/rate-limit.js';
import { egressAddressPolicy } from '../modules/sandbox/egress/egress-proxy.js';
import { parseAllowList } from '../modules/sandbox/egress/host-allow-list.js';
import { createSandbox, type Sandbox } from '../modules/sandbox/sandbox.js';
import { type SandboxMode, sandboxConfig } from '../modules/sandbox/sandbox-mode.js';
import { createRuntime, type RuntimeOptions } from '../runtime.js';
import { openTestDatabase } from './test-db.js';

/** Limits high enough that a test suite registering many users never meets them. */
export const RELAXED_LIMITS: RateLimits = {
  ...DEFAULT_RATE_LIMITS,
  perIp: { max: 100_000, windowMs: 60_000 },
  failedLoginsPerAddress: { max: 100_000, windowMs: 60_000 },
};

export interface TestApp {
  app: App;
  deps: AppDeps;
  database: Database;
  simulatorUrl: string;
  /** The real sandbox checks run in: bubblewrap when installed, else as this user (host). */
  sandbox: Sandbox;
  /** Root of the app's files (repositories, worktrees). */
  dataDir: string;
  /** Moves the app's clock forward. */
  advance(ms: number): void;
  close(): Promise<void>;
  /** Stops the app as a server stops, keeping its database open and its data dir: for `reopen`. */
  stop(): Promise<void>;
}

export interface TestAppOptions {
  /** A database opened by the test (closed with the app); by default a fresh test database. */
  database?: Database;
  /**
   * A restart: the database (`database`, left open by `close`) and data dir (kept) of an app the test
   * closed, as the next process finds them.
   */
  reopen?: { database: Database; dataDir: string };
  deps?: Partial<AppDeps>;
  runtime?: Partial<Omit<RuntimeOptions, 'database' | 'dataDir' | 'logger' | 'now'>>;
  app?: Partial<AppOptions>;
  /** AUTOCODER_SANDBOX as an operator would set it; by default chosen as on a loopback server. */
  sandboxMode?: SandboxMode;
  /** Collects every log line the server writes (level debug), for tests that search them. */
  logLines?: string[];
  /**
   * AUTOCODER_SANDBOX_ALLOWED_HOSTS as an operator would set it (bwrap mode): the hosts sandboxed
   * commands may reach through the egress proxies. Unset: no network, as on a server without it.
   */
  sandboxAllowedHosts?: readonly string[];
}

/**
 * The real app over a real database (PGlite, or PostgreSQL via TEST_DATABASE_URL), a temp
 * data dir and a real simulator on a loopback port streaming at full speed.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.reopen?.database ?? options.database ?? (await openTestDatabase());
  const dataDir = options.reopen?.dataDir ?? (await mkdtemp(path.join(tmpdir(), 'autocoder-test-')));
  // As the server builds it on loopback: bubblewrap when installed, else the server's own user.
  const sandbox = createSandbox({
    ...sandboxConfig({
      requested: options.sandboxMode,
      host: '127.0.0.1',
      path: process.env.PATH ?? '/usr/bin:/bin',
      dataDir,
    }),
    ...(options.sandboxAllowedHosts ? { network: testNetwork(options.sandboxAllowedHosts) } : {}),
  });
  let offset = 0;
  const runtime = await createRuntime({
    database,
    dataDir,
    logger: options.logLines
      ? createLogger('debug', {}, (line) => options.logLines?.push(line))
      : createLogger(process.env.TEST_LOG_LEVEL === 'debug' ? 'debug' : 'silent'),
    now: () => Date.now() + offset,
    rateLimitStore: createMemoryRateLimitStore(),
    rateLimits: RELAXED_LIMITS,
    trustProxy: false,
    version: 'test',
    providerDefaults: {},
    simulatorChunkDelayMs: 0,
    backoffBaseMs: 1,
    eventLog: { flushIntervalMs: 20 },
    sandbox,
    ...options.runtime,
  });
  const deps: AppDeps = { ...runtime.deps, ...options.deps };
  return {
    // Its own host: loopback names, port-less (app.request) or on whatever port a test serves it.
    app: createApp(deps, {
      hosts: () => ({ own: new Set(), ownOnAnyPort: new Set(LOOPBACK_NAMES), baseDomain: 'localhost' }),
      ...options.app,
    }),
    deps,
    database,
    simulatorUrl: runtime.simulatorUrl,
    sandbox,
    dataDir,
    advance(ms) {
      offset += ms;
    },
    async stop() {
      await runtime.close();
      await sandbox.close();
    },
    async close() {
      await runtime.close();
      await sandbox.close();
      await database.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The egress of a sandbox whose operator lists `hosts` (public addresses only), as sandbox-setup.ts builds it. */
function testNetwork(hosts: readonly string[]) {
  const list = parseAllowList(hosts);
  if (list.errors.length > 0) throw new Error(`sandboxAllowedHosts: ${list.errors.join('; ')}`);
  return { allowList: list.patterns, policy: egressAddressPolicy([]), logger: { info: () => {} } };
}

export interface ClientResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** A browser-like client of the app: keeps its session cookie, sends JSON, sends our Origin on writes. */
export class TestClient {
  cookie = '';

  constructor(private readonly app: App) {}

  async request<T = Record<string, unknown>>(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ClientResponse<T>> {
    const init: RequestInit = {
      method,
      headers: {
        host: 'localhost',
        ...(method === 'GET' ? {} : { origin: 'http://localhost' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    };
    const res = await this.app.request(`http://localhost${url}`, init);
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const pair = setCookie.split(';')[0] ?? '';
      this.cookie = /=$/.test(pair) || /Max-Age=0/i.test(setCookie) ? '' : pair;
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get<T = Record<string, unknown>>(url: string) {
    return this.request<T>('GET', url);
  }
  post<T = Record<string, unknown>>(url: string, body?: unknown) {
    return this.request<T>('POST', url, body);
  }
  patch<T = Record<string, unknown>>(url: string, body?: unknown) {
    return this.request<T>('PATCH', url, body);
  }
  delete<T = Record<string, unknown>>(url: string) {
    return this.request<T>('DELETE', url);
  }
}

let counter = 0;

/** Registers a fresh user and returns a client signed in as them, with their default project's id. */
export async function signedInClient(app: App, email?: string) {
  const client = new TestClient(app);
  counter += 1;
  const address = email ?? `user${counter}-${Date.now()}@example.com`;
  const res = await client.post<{ user: { id: string } }>('/api/auth/register', {
    email: address,
    password: 'correct horse battery',
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  const projects = await client.get<{ projects: { id: string }[] }>('/api/projects');
  const projectId = projects.body.projects[0]?.id;
  if (!projectId) throw new Error('no default project');
  return { client, email: address, userId: res.body.user.id, projectId };
}
