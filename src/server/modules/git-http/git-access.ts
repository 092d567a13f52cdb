import type { Db } from '@/server/db/client.js';
import { bearerToken } from '@/server/lib/bearer.js';
import type { Agent } from '../coordination/tokens.js';
import { resolveToken } from '../coordination/tokens.js';
import { findOwnedProject, type ProjectRow } from '../projects/index.js';

/** The token of `Authorization: Basic <user:token>` (any user name) or `Bearer <token>`. */
export function tokenOf(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const bearer = bearerToken(authorization);
  if (bearer) return bearer;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (!basic?.[1]) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

export type GitAccess =
  | { ok: true; agent: Agent; project: ProjectRow }
  | { ok: false; reason: 'unauthorized' | 'not-found' };

/** Who may reach a project's repository: the agent of a live token, on a project of its user. */
export async function gitAccess(
  deps: { db: Db; now: () => number; credentialRecheckMs: number | null },
  authorization: string | undefined,
  projectId: string,
): Promise<GitAccess> {
  const token = tokenOf(authorization);
  const agent = token ? await resolveToken(deps.db, token, deps.now(), deps.credentialRecheckMs) : null;
  if (!agent) return { ok: false, reason: 'unauthorized' };
  const project = await findOwnedProject(deps.db, agent.userId, projectId);
  return project ? { ok: true, agent, project } : { ok: false, reason: 'not-found' };
}
