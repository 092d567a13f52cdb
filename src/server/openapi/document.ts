/**
 * The tags of the document, each with what its routes are for, in the order their first routes
 * are mounted (the reference page lists them so). Every route names one of them (openapi.test.ts
 * checks both ways).
 */
export const TAGS = [
  { name: 'operations', description: 'For load balancers and the operator: health and metrics.' },
  { name: 'documentation', description: 'This document and its reference page.' },
  { name: 'auth', description: 'Accounts, and the session cookie every protected route needs.' },
  {
    name: 'coordination',
    description:
      'For agents editing one repository at once: file locks (check_status, post_status), and a project’s live locks and lock activity.',
  },
  {
    name: 'projects',
    description:
      'Projects, one git repository each (new, imported from a server path or cloned): their files, settings and setup command.',
  },
  {
    name: 'services',
    description: 'A workspace’s services (`.discobot/services/`): list, start, stop, output and preview.',
  },
  { name: 'tasks', description: 'The board’s tasks, and the moves a person may make between its columns.' },
  {
    name: 'pipeline',
    description:
      'Runs of the plan → code → review pipeline on a task: start, retry, cancel, approve, revert, request changes; their events, diffs and line comments.',
  },
  {
    name: 'tokens',
    description: 'Agent tokens: the bearer credentials of check_status, post_status, MCP and git.',
  },
  { name: 'engines', description: 'The coder engines this server can run, and why one cannot.' },
  { name: 'events', description: 'Server-sent events: a task’s run as it happens, and a project’s board.' },
  { name: 'graph', description: 'The import graph of a branch head, with its files’ locks.' },
] as const;

/**
 * What the generated document leaves out: where the API is (the server that serves the document;
 * every path starts with /api), and the tags' descriptions.
 */
export function completeDocument<D extends { openapi: string; info: object }>(document: D) {
  const { openapi, info, ...rest } = document;
  return {
    openapi,
    info,
    servers: [{ url: '/', description: 'The AutoCoder server that serves this document' }],
    tags: TAGS,
    ...rest,
  };
}
