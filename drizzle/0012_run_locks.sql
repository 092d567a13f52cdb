CREATE TABLE "run_locks" (
	"run_id" uuid NOT NULL,
	"path" text NOT NULL,
	"branch" text NOT NULL,
	"holder_name" text NOT NULL,
	"message" text NOT NULL,
	"taken_at" bigint NOT NULL,
	CONSTRAINT "run_locks_run_id_path_pk" PRIMARY KEY("run_id","path")
);
--> statement-breakpoint
ALTER TABLE "run_locks" ADD CONSTRAINT "run_locks_run_id_pipeline_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."pipeline_runs"("id") ON DELETE cascade ON UPDATE no action;