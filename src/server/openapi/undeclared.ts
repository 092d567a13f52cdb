/**
 * Routes served outside the OpenAPI document, each for a reason: they speak another protocol than
 * JSON over HTTP, so they are mounted as plain Hono handlers and documented where their protocol is.
 * Every other route the app serves is declared (openapi.test.ts checks both ways). A route added
 * here needs its reason; keep the list short.
 */
export const UNDECLARED_ROUTES: ReadonlyArray<{ path: RegExp; reason: string }> = [
  {
    path: /^\/mcp(\/|$)/,
    reason: 'Model Context Protocol (JSON-RPC over Streamable HTTP): described by its own tools/list',
  },
  {
    path: /^\/api\/workspaces\/:workspaceId\/services\/:id\/http(\/\*)?$/,
    reason:
      'the service path proxy: any method, any path below it, the service’s own answers (docs/services.md); mounted with ALL',
  },
  {
    path: /^\/git\//,
    reason: 'git smart HTTP (info/refs, git-upload-pack, git-receive-pack): pkt-line bodies, for git clients',
  },
];

/** Whether `path` (as Hono lists it) is one of the routes left out of the document on purpose. */
export function isUndeclaredRoute(path: string): boolean {
  return UNDECLARED_ROUTES.some((route) => route.path.test(path));
}
