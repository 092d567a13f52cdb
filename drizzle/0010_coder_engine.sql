ALTER TABLE "projects" ADD COLUMN "coder_engine" text DEFAULT 'autocoder' NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "max_tool_calls" integer DEFAULT 60 NOT NULL;--> statement-breakpoint
ALTER TABLE "tasks" ADD COLUMN "coder_engine" text;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_max_tool_calls_range" CHECK ("projects"."max_tool_calls" between 1 and 500);