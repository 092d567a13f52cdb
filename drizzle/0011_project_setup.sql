ALTER TABLE "projects" ADD COLUMN "setup_command" text;--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "setup_timeout_seconds" integer DEFAULT 600 NOT NULL;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_setup_command_length" CHECK (char_length("projects"."setup_command") <= 1000);--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_setup_timeout_range" CHECK ("projects"."setup_timeout_seconds" between 10 and 3600);