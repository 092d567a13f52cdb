CREATE TABLE "events" (
	"stream" text NOT NULL,
	"seq" bigint NOT NULL,
	"run_id" uuid,
	"type" text NOT NULL,
	"data" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "events_stream_seq_pk" PRIMARY KEY("stream","seq")
);
--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "provider" text DEFAULT 'anthropic' NOT NULL;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "agent_configs" jsonb;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "subtasks" jsonb;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "cursor" jsonb;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "feedback" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "branch" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "worktree_path" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "base_commit" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "head_commit" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "merge_commit" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "input_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "output_tokens" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "cost_usd" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "calls" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "updated_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
CREATE INDEX "events_run_idx" ON "events" USING btree ("run_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "pipeline_runs_one_active_per_task" ON "pipeline_runs" USING btree ("task_id") WHERE status in ('running', 'paused');