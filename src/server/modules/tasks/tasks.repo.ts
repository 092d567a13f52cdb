import { and, asc, eq, ilike, inArray, ne, or, type SQL, sql } from 'drizzle-orm';
import { ACTIVE_RUN_STATUSES } from '@/contracts/run-lifecycle.js';
import type { TaskStatus } from '@/contracts/tasks.js';
import type { Db } from '@/server/db/client.js';
import { pipelineRuns, projects, tasks } from '@/server/db/schema.js';

export type TaskRow = typeof tasks.$inferSelect;

const STATUS_ORDER = sql`array_position(array['backlog','spec','building','review','done']::text[], ${tasks.status})`;

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (ch) => `\\${ch}`);

export interface TaskListFilter {
  projectId: string;
  status?: string | undefined;
  category?: string | undefined;
  q?: string | undefined;
}

function listConditions(filter: TaskListFilter): SQL | undefined {
  const conditions: SQL[] = [eq(tasks.projectId, filter.projectId)];
  if (filter.status) conditions.push(eq(tasks.status, filter.status));
  if (filter.category) conditions.push(eq(tasks.category, filter.category));
  if (filter.q) {
    const pattern = `%${escapeLike(filter.q)}%`;
    const match = or(ilike(tasks.title, pattern), ilike(tasks.description, pattern));
    if (match) conditions.push(match);
  }
  return and(...conditions);
}

const LIST_ORDER = [STATUS_ORDER, asc(tasks.position), asc(tasks.createdAt)];

export async function listTaskRows(db: Db, filter: TaskListFilter): Promise<TaskRow[]> {
  return db
    .select()
    .from(tasks)
    .where(listConditions(filter))
    .orderBy(...LIST_ORDER);
}

// A card (TaskCard) as JSON, written by the database: a list of 1,000 cards is one string to
// receive, instead of 15,000 fields to parse, map, re-assemble and JSON.stringify on the server's
// one thread. Built by concatenation (to_json quotes and escapes each value; a uuid needs neither),
// which PostgreSQL runs faster than row_to_json, and without spaces, as JSON.stringify writes it.
// Numbers keep their value, not always their spelling (1e-07 where JavaScript writes 1e-7).
const CARD_JSON = sql`'{"id":"' || ${tasks.id} || '","title":' || to_json(${tasks.title})
  || ',"category":' || to_json(${tasks.category}) || ',"priority":' || to_json(${tasks.priority})
  || ',"status":' || to_json(${tasks.status}) || ',"position":' || to_json(${tasks.position})
  || ',"run":' || coalesce(run.json, 'null') || '}'`;

// A card's run (CardRun) as JSON: the task's latest, its subtask counted as toRunSummary
// (pipeline/run-view.ts) counts it, startedAt as Date#toISOString writes it (milliseconds, UTC).
// The latest run of each of the project's tasks is one DISTINCT ON over their runs, hash-joined to
// the cards: a lookup per card (a LATERAL subquery, 1,000 index probes and sorts) cost as much as
// the rest of the list together.
const cardRuns = (projectId: string) => sql`(
  select distinct on (r.task_id) r.task_id,
    '{"id":"' || r.id || '","taskId":"' || r.task_id || '","phase":' || to_json(r.phase)
    || ',"status":' || to_json(r.status) || ',"iteration":' || coalesce(r.iteration, 0)
    || ',"simulated":' || (r.provider = 'simulator')
    || ',"subtask":' || case
      when r.phase = 'coding' and jsonb_array_length(coalesce(r.subtasks, '[]'::jsonb)) > 0 then
        '{"index":' || least(jsonb_array_length(r.subtasks), coalesce((r.cursor ->> 'subtaskIndex')::int, 0) + 1)
        || ',"total":' || jsonb_array_length(r.subtasks) || '}'
      else 'null' end
    || ',"roundStart":' || coalesce((r.cursor ->> 'roundStart')::int, 0)
    || ',"startedAt":"' || to_char(r.started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"}' as json
  from ${pipelineRuns} r
  where r.task_id in (select t2.id from ${tasks} t2 where t2.project_id = ${projectId})
  order by r.task_id, r.started_at desc, r.id desc
) run on run.task_id = ${tasks.id}`;

/**
 * The board's cards as the JSON text `{"tasks":[…]}`, with the project's version in the same
 * snapshot (so the version names exactly these cards); null when the user owns no such project.
 */
export async function listCardsJson(
  db: Db,
  userId: string,
  filter: TaskListFilter,
): Promise<{ version: number; json: string } | null> {
  const [row] = await db
    .select({
      version: projects.tasksVersion,
      json: sql<string>`(
        select '{"tasks":[' || coalesce(string_agg(${CARD_JSON}, ',' order by ${sql.join(LIST_ORDER, sql`, `)}), '') || ']}'
        from ${tasks} left join ${cardRuns(filter.projectId)}
        where ${listConditions(filter)}
      )`,
    })
    .from(projects)
    .where(and(eq(projects.id, filter.projectId), eq(projects.userId, userId)))
    .limit(1);
  return row ?? null;
}

function prepareFindTasksVersion(db: Db) {
  return db
    .select({ version: projects.tasksVersion })
    .from(projects)
    .where(and(eq(projects.id, sql.placeholder('projectId')), eq(projects.userId, sql.placeholder('userId'))))
    .limit(1)
    .prepare('find_tasks_version');
}

// Every board load and revalidation runs it: built once per database, prepared once per connection.
const findTasksVersionQueries = new WeakMap<Db, ReturnType<typeof prepareFindTasksVersion>>();

/** The project's board version (bumped by triggers on every task write), when the user owns it. */
export async function findTasksVersion(db: Db, userId: string, projectId: string): Promise<number | null> {
  let query = findTasksVersionQueries.get(db);
  if (!query) {
    query = prepareFindTasksVersion(db);
    findTasksVersionQueries.set(db, query);
  }
  const [row] = await query.execute({ projectId, userId });
  return row?.version ?? null;
}

/** The task when it exists and its project belongs to the user. */
export async function findOwnedTask(db: Db, userId: string, taskId: string): Promise<TaskRow | null> {
  const [row] = await db
    .select({ task: tasks })
    .from(tasks)
    .innerJoin(projects, eq(projects.id, tasks.projectId))
    .where(and(eq(tasks.id, taskId), eq(projects.userId, userId)))
    .limit(1);
  return row?.task ?? null;
}

/** Positions of a column in order, leaving out one task (the one being moved). */
export async function columnPositions(db: Db, projectId: string, status: string, exceptTaskId?: string) {
  const conditions: SQL[] = [eq(tasks.projectId, projectId), eq(tasks.status, status)];
  if (exceptTaskId) conditions.push(ne(tasks.id, exceptTaskId));
  return db
    .select({ id: tasks.id, position: tasks.position })
    .from(tasks)
    .where(and(...conditions))
    .orderBy(asc(tasks.position), asc(tasks.createdAt));
}

export async function maxPosition(db: Db, projectId: string, status: string): Promise<number | null> {
  const [row] = await db
    .select({ value: sql<number | null>`max(${tasks.position})` })
    .from(tasks)
    .where(and(eq(tasks.projectId, projectId), eq(tasks.status, status)));
  return row?.value ?? null;
}

export async function insertTask(db: Db, values: typeof tasks.$inferInsert): Promise<TaskRow> {
  const [row] = await db.insert(tasks).values(values).returning();
  if (!row) throw new Error('insert returned no row');
  return row;
}

export async function updateTaskRow(
  db: Db,
  taskId: string,
  values: Partial<typeof tasks.$inferInsert>,
): Promise<TaskRow | null> {
  const [row] = await db.update(tasks).set(values).where(eq(tasks.id, taskId)).returning();
  return row ?? null;
}

/**
 * Rewrites a column's positions evenly (used when fractional positions run out of room). One
 * statement: the board version trigger then locks the project row once, after every task row, so a
 * concurrent single-task write cannot deadlock with it.
 */
export async function renumberColumn(db: Db, ordered: { id: string }[], step: number): Promise<void> {
  if (ordered.length === 0) return;
  const positions = sql.join(
    ordered.map((task, index) => sql`(${task.id}::uuid, ${(index + 1) * step}::double precision)`),
    sql`, `,
  );
  await db.execute(
    sql`update ${tasks} set position = v.position from (values ${positions}) as v(id, position) where ${tasks.id} = v.id`,
  );
}

export async function deleteTaskRow(db: Db, taskId: string): Promise<void> {
  await db.delete(tasks).where(eq(tasks.id, taskId));
}

export type { TaskStatus };

/** Serialises order changes within a project until the transaction ends. */
export async function lockProjectOrder(db: Db, projectId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`task-order:${projectId}`}, 0))`);
}

export async function findTaskForUpdate(db: Db, taskId: string): Promise<TaskRow | null> {
  const [row] = await db.select().from(tasks).where(eq(tasks.id, taskId)).for('update').limit(1);
  return row ?? null;
}

/** True while a run of the task is active (`ACTIVE_RUN_STATUSES`). */
export async function hasActiveRun(db: Db, taskId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: pipelineRuns.id })
    .from(pipelineRuns)
    .where(and(eq(pipelineRuns.taskId, taskId), inArray(pipelineRuns.status, [...ACTIVE_RUN_STATUSES])))
    .limit(1);
  return Boolean(row);
}
