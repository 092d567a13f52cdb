CREATE TABLE "review_comments" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"run_id" uuid NOT NULL,
	"path" text NOT NULL,
	"line" integer NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"addressed_at" timestamp with time zone,
	CONSTRAINT "review_comments_body_length" CHECK (char_length("review_comments"."body") between 1 and 4000),
	CONSTRAINT "review_comments_line_positive" CHECK ("review_comments"."line" >= 1)
);
--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "merged_onto" text;--> statement-breakpoint
ALTER TABLE "pipeline_runs" ADD COLUMN "revert_commit" text;--> statement-breakpoint
ALTER TABLE "review_comments" ADD CONSTRAINT "review_comments_run_id_pipeline_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."pipeline_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "review_comments_run_idx" ON "review_comments" USING btree ("run_id","created_at");