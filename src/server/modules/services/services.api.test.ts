import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service, ServiceList } from '@/contracts/services.js';
import { signedInClient } from '@/server/testing/test-app.js';
import {
  echoService,
  rawRequest,
  type ServedApp,
  serveTestApp,
  userWithWorkspace,
  waitFor,
  writeService,
} from './testing/fixture.js';
import { readOutput, textOf } from './testing/output-client.js';

let served: ServedApp;
let user: Awaited<ReturnType<typeof userWithWorkspace>>;

beforeAll(async () => {
  served = await serveTestApp();
  user = await userWithWorkspace(served);
  await writeService(
    user.repoPath,
    'web',
    echoService(
      '//---\n// name: Echo\n// description: answers what it got\n// http: auto\n// path: /hello\n//---',
    ),
  );
  await writeService(user.repoPath, 'webapp', '---\nname: Web App\nhttp: 1\n---\n', 0o644);
  await writeService(
    user.repoPath,
    'worker',
    '#!/bin/sh\n#---\n# name: Worker\n#---\necho working; exec sleep 600\n',
  );
  await writeService(user.repoPath, 'crash', '#!/bin/sh\necho about to fail >&2\nexit 3\n');
  await writeService(user.repoPath, 'not-a-service', 'just text\n', 0o644);
}, 60_000);
afterAll(() => served?.close());

const get = (path: string) => user.client.get(path);
const post = (path: string) => user.client.post(path);
const status = async (id: string) => (await user.client.get<Service>(`${user.api}/${id}`)).body;

describe('the services API (seed 002)', () => {
  it('lists the services of a workspace with their front matter, and the files that are not services', async () => {
    const res = await user.client.get<ServiceList>(user.api);
    expect(res.status).toBe(200);
    expect(res.body.services.map((s) => s.id)).toEqual(['crash', 'web', 'webapp', 'worker']);
    expect(res.body.services.find((s) => s.id === 'web')).toEqual({
      id: 'web',
      name: 'Echo',
      description: 'answers what it got',
      http: 'auto',
      path: '.discobot/services/web',
      urlPath: '/hello',
      status: 'stopped',
    });
    expect(res.body.services.find((s) => s.id === 'webapp')).toMatchObject({
      http: 1,
      status: 'stopped',
      passive: true,
    });
    expect(res.body.warnings).toEqual([
      { file: '.discobot/services/not-a-service', message: expect.stringMatching(/not a service/) },
    ]);
  });

  it('answers every row of the error table with its status and body', async () => {
    const notFound = await get(`${user.api}/nope`);
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({
      error: 'service_not_found',
      serviceId: 'nope',
      message: expect.any(String),
    });
    for (const action of ['start', 'stop']) {
      expect((await post(`${user.api}/not-a-service/${action}`)).body).toMatchObject({
        error: 'service_not_found',
      });
    }
    expect((await get(`${user.api}/not-a-service/output`)).status).toBe(404);

    for (const action of ['start', 'stop']) {
      const passive = await post(`${user.api}/webapp/${action}`);
      expect(passive.status).toBe(400);
      expect(passive.body).toEqual({
        error: 'service_is_passive',
        serviceId: 'webapp',
        message: expect.any(String),
      });
    }
    expect((await get(`${user.api}/webapp/output`)).body).toMatchObject({ error: 'service_is_passive' });

    const notRunning = await post(`${user.api}/worker/stop`);
    expect(notRunning.status).toBe(400);
    expect(notRunning.body).toEqual({
      error: 'service_not_running',
      serviceId: 'worker',
      message: expect.any(String),
    });

    const noPort = await rawRequest(served.port, {
      path: `${user.api}/worker/http/`,
      headers: { cookie: user.cookie },
    });
    expect(noPort.status).toBe(400);
    expect(JSON.parse(noPort.body)).toEqual({
      error: 'service_no_port',
      serviceId: 'worker',
      message: expect.any(String),
    });

    const proxyStopped = await rawRequest(served.port, {
      path: `${user.api}/web/http/`,
      headers: { cookie: user.cookie },
    });
    expect(proxyStopped.status).toBe(400);
    expect(JSON.parse(proxyStopped.body)).toMatchObject({ error: 'service_not_running', serviceId: 'web' });

    // Port 1 on loopback: nobody listens there.
    const refused = await rawRequest(served.port, {
      path: `${user.api}/webapp/http/`,
      headers: { cookie: user.cookie },
    });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toEqual({
      error: 'connection_refused',
      port: 1,
      message: expect.any(String),
    });
    const page = await rawRequest(served.port, {
      path: `${user.api}/webapp/http/`,
      headers: { cookie: user.cookie, accept: 'text/html,application/xhtml+xml' },
    });
    expect(page.status).toBe(503);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('connection_refused');

    await post(`${user.api}/worker/start`);
    const running = await waitFor(
      () => status('worker'),
      (s) => s.status === 'running',
    );
    const again = await post(`${user.api}/worker/start`);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      error: 'service_already_running',
      serviceId: 'worker',
      pid: running.pid,
      message: expect.any(String),
    });
    expect((await post(`${user.api}/worker/stop`)).status).toBe(200);
  });

  it('refuses ids that are paths (400) and workspaces that are not the user’s (404)', async () => {
    for (const trick of ['..%2F..%2Fetc%2Fpasswd', '.hidden', 'a%2Fb', '..%5C..%5Cx']) {
      const res = await get(`${user.api}/${trick}`);
      expect(res.status, trick).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR' });
    }
    // The URL itself resolves dot segments: `/services/%2e%2e` is `/services/`, no route.
    expect((await get(`${user.api}/%2e%2e/start`)).status).toBe(404);
    const other = await signedInClient(served.t.app);
    for (const path of [user.api, `${user.api}/web`]) {
      const res = await other.client.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ error: 'WORKSPACE_NOT_FOUND' });
    }
    expect((await other.client.post(`${user.api}/web/start`)).status).toBe(404);
    expect((await other.client.get(`/api/projects/${user.projectId}/workspaces`)).status).toBe(404);
    expect((await get('/api/workspaces/not-a-ulid/services')).status).toBe(404);
    const anonymous = await rawRequest(served.port, { path: user.api });
    expect(anonymous.status).toBe(401);
  });

  it('starts a service (202), runs it once its port answers HTTP, streams its output, and stops it', async () => {
    const start = await post(`${user.api}/web/start`);
    expect(start.status).toBe(202);
    expect(start.body).toEqual({ status: 'starting', serviceId: 'web' });
    const running = await waitFor(
      () => status('web'),
      (s) => s.status === 'running',
    );
    expect(running).toMatchObject({
      status: 'running',
      pid: expect.any(Number),
      startedAt: expect.any(String),
    });
    expect(typeof running.http).toBe('number');
    // Through the proxy: the service's own network is out of the host's reach.
    const proxied = await rawRequest(served.port, {
      path: `${user.api}/web/http/`,
      headers: { cookie: user.cookie },
    });
    expect(proxied.status).toBe(200);

    // A live client: the stored output first, then what comes, the exit and [DONE] when it stops.
    const outputUrl = `${served.base}${user.api}/web/output`;
    let sawListening!: () => void;
    const listening = new Promise<void>((resolve) => {
      sawListening = resolve;
    });
    const reading = readOutput(outputUrl, user.cookie, {
      onEvents: (events) => textOf(events).includes('listening on') && sawListening(),
    });
    await listening;
    const stop = await post(`${user.api}/web/stop`);
    expect(stop.status).toBe(200);
    expect(stop.body).toEqual({ status: 'stopped', serviceId: 'web' });
    const live = await reading;
    expect(live.done).toBe(true);
    expect(textOf(live.events)).toContain(`listening on ${running.http}`);
    expect(live.events.at(-1)).toMatchObject({ type: 'exit', timestamp: expect.any(String) });

    const stopped = await status('web');
    expect(stopped).toMatchObject({ status: 'stopped', http: running.http });
    expect(stopped.pid).toBeUndefined();
    // After it stopped: the stored output, the exit, [DONE], at once.
    const replay = await readOutput(outputUrl, user.cookie);
    expect(replay.done).toBe(true);
    expect(replay.events).toEqual(live.events);
  });

  it('is in error, with the reason, when its process fails or its port never opens', async () => {
    await post(`${user.api}/crash/start`);
    const crashed = await waitFor(
      () => status('crash'),
      (s) => s.status === 'error',
    );
    expect(crashed).toMatchObject({ error: 'exited with code 3', exitCode: 3 });
    const output = await readOutput(`${served.base}${user.api}/crash/output`, user.cookie);
    expect(textOf(output.events)).toContain('about to fail');
    expect(output.events.at(-1)).toMatchObject({ type: 'exit', exitCode: 3 });
  });

  it('gives services the project’s environment variables, its own names included', async () => {
    const patch = await user.client.patch(`/api/projects/${user.projectId}`, {
      serviceEnv: { GREETING: 'hello from settings', STRIPE_API_KEY: 'sk_test_1' },
    });
    expect(patch.status).toBe(200);
    expect(patch.body).toMatchObject({ serviceEnv: { GREETING: 'hello from settings' } });
    expect(
      (await user.client.patch(`/api/projects/${user.projectId}`, { serviceEnv: { PATH: '/x' } })).status,
    ).toBe(400);
    expect(
      (await user.client.patch(`/api/projects/${user.projectId}`, { serviceEnv: { 'BAD-NAME': 'x' } }))
        .status,
    ).toBe(400);
    await writeService(
      user.repoPath,
      'env',
      '#!/bin/sh\necho "$GREETING / $STRIPE_API_KEY / db=$DATABASE_URL."\n',
    );
    await post(`${user.api}/env/start`);
    await waitFor(
      () => status('env'),
      (s) => s.status === 'stopped' && s.exitCode === 0,
    );
    const output = await readOutput(`${served.base}${user.api}/env/output`, user.cookie);
    expect(textOf(output.events)).toContain('hello from settings / sk_test_1 / db=.');
  });
});
