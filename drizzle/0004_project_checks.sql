ALTER TABLE "projects" ADD COLUMN "check_command" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "check_timeout_seconds" integer DEFAULT 300 NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_check_command_length" CHECK (char_length("projects"."check_command") <= 1000);--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_check_timeout_range" CHECK ("projects"."check_timeout_seconds" between 10 and 3600);