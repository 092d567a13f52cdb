ALTER TABLE "projects" ADD COLUMN "tasks_version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The board's ETag: every write to a project's tasks, and every change of what a card shows of a run,
-- bumps projects.tasks_version in the writing transaction. Tasks use statement triggers, so a
-- renumbered column bumps once.
CREATE FUNCTION "bump_tasks_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "projects" SET "tasks_version" = "tasks_version" + 1
  WHERE "id" IN (SELECT DISTINCT "project_id" FROM "changed_tasks");
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "tasks_version_insert" AFTER INSERT ON "tasks"
  REFERENCING NEW TABLE AS "changed_tasks" FOR EACH STATEMENT EXECUTE FUNCTION "bump_tasks_version"();--> statement-breakpoint
CREATE TRIGGER "tasks_version_update" AFTER UPDATE ON "tasks"
  REFERENCING NEW TABLE AS "changed_tasks" FOR EACH STATEMENT EXECUTE FUNCTION "bump_tasks_version"();--> statement-breakpoint
CREATE TRIGGER "tasks_version_delete" AFTER DELETE ON "tasks"
  REFERENCING OLD TABLE AS "changed_tasks" FOR EACH STATEMENT EXECUTE FUNCTION "bump_tasks_version"();--> statement-breakpoint
CREATE FUNCTION "bump_tasks_version_for_run"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "projects" SET "tasks_version" = "tasks_version" + 1
  WHERE "id" = (SELECT "project_id" FROM "tasks" WHERE "id" = COALESCE(NEW."task_id", OLD."task_id"));
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "pipeline_runs_version_insert_delete" AFTER INSERT OR DELETE ON "pipeline_runs"
  FOR EACH ROW EXECUTE FUNCTION "bump_tasks_version_for_run"();--> statement-breakpoint
-- Only the fields a card shows (see tasks.repo.ts, latest run): cost and log updates do not bump.
CREATE TRIGGER "pipeline_runs_version_update" AFTER UPDATE ON "pipeline_runs" FOR EACH ROW
  WHEN (
    OLD."phase" IS DISTINCT FROM NEW."phase"
    OR OLD."status" IS DISTINCT FROM NEW."status"
    OR OLD."iteration" IS DISTINCT FROM NEW."iteration"
    OR OLD."provider" IS DISTINCT FROM NEW."provider"
    OR OLD."started_at" IS DISTINCT FROM NEW."started_at"
    OR OLD."subtasks" IS DISTINCT FROM NEW."subtasks"
    OR OLD."cursor" -> 'subtaskIndex' IS DISTINCT FROM NEW."cursor" -> 'subtaskIndex'
    OR OLD."cursor" -> 'roundStart' IS DISTINCT FROM NEW."cursor" -> 'roundStart'
  )
  EXECUTE FUNCTION "bump_tasks_version_for_run"();
