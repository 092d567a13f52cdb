ALTER TABLE "pipeline_runs" ADD COLUMN "earlier_usage" jsonb DEFAULT '{"inputTokens":0,"outputTokens":0,"costUsd":0}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "task_token_budget" integer;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_task_token_budget_positive" CHECK ("projects"."task_token_budget" >= 1);--> statement-breakpoint
-- Runs made before budgets: what their task's earlier runs had spent when each started.
UPDATE "pipeline_runs" AS "run" SET "earlier_usage" = (
  SELECT jsonb_build_object(
    'inputTokens', COALESCE(SUM("earlier"."input_tokens"), 0),
    'outputTokens', COALESCE(SUM("earlier"."output_tokens"), 0),
    'costUsd', COALESCE(SUM("earlier"."cost_usd"), 0)
  )
  FROM "pipeline_runs" AS "earlier"
  WHERE "earlier"."task_id" = "run"."task_id" AND "earlier"."started_at" < "run"."started_at"
);
