import type { AddressInfo } from 'node:net';
import { LOOPBACK_NAMES } from '@/server/http/host-check.js';
import type { TestApp } from '@/server/testing/test-app.js';
import { createAppServer } from '../app-server.js';

/** A test app on a loopback socket as main.ts serves it (createAppServer), counting what reaches Hono. */
export interface ServedByNode {
  url: string;
  /** Requests the node server handed to the app (its `fetch`): none for those it answers itself. */
  appRequests: () => number;
  close(): Promise<void>;
}

export async function serveAsMain(t: TestApp): Promise<ServedByNode> {
  let appRequests = 0;
  const fetch: typeof t.app.fetch = (request, env, ctx) => {
    appRequests += 1;
    return t.app.fetch(request, env, ctx);
  };
  const server = createAppServer(t.deps, fetch, () => ({
    own: new Set(),
    ownOnAnyPort: new Set(LOOPBACK_NAMES),
    baseDomain: 'localhost',
  }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    appRequests: () => appRequests,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
