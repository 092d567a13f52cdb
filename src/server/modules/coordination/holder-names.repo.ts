import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '@/server/db/client.js';
import { agentTokens, pipelineRuns, tasks, users } from '@/server/db/schema.js';

/** Who a lock holder id names, among a project's possible holders. */
export interface HolderName {
  name: string;
  /** Set when the holder is one of the project's pipeline runs. */
  taskId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The names of lock holders of a project owned by `userId`: its runs (their task's title), the
 * owner's agent tokens (their name) and the owner (the email). Ids naming none of these are left out.
 */
export async function holderNames(
  db: Db,
  userId: string,
  projectId: string,
  ids: readonly string[],
): Promise<Map<string, HolderName>> {
  const wanted = [...new Set(ids)].filter((id) => UUID.test(id));
  const found = new Map<string, HolderName>();
  if (wanted.length === 0) return found;
  const [runs, tokens, owner] = await Promise.all([
    db
      .select({ id: pipelineRuns.id, taskId: tasks.id, title: tasks.title })
      .from(pipelineRuns)
      .innerJoin(tasks, eq(tasks.id, pipelineRuns.taskId))
      .where(and(inArray(pipelineRuns.id, wanted), eq(tasks.projectId, projectId))),
    db
      .select({ id: agentTokens.id, name: agentTokens.name })
      .from(agentTokens)
      .where(and(inArray(agentTokens.id, wanted), eq(agentTokens.userId, userId))),
    wanted.includes(userId)
      ? db.select({ id: users.id, email: users.email }).from(users).where(eq(users.id, userId))
      : Promise.resolve([]),
  ]);
  for (const run of runs) found.set(run.id, { name: run.title, taskId: run.taskId });
  for (const token of tokens) found.set(token.id, { name: token.name });
  for (const user of owner) found.set(user.id, { name: user.email });
  return found;
}
