ALTER TABLE "projects" ALTER COLUMN "repo_url" DROP NOT NULL;--> statement-breakpoint
-- Paths on the server were shown as the URL of new and locally imported projects: no longer.
UPDATE "projects" SET "repo_url" = NULL WHERE "repo_url" LIKE '/%' OR "repo_url" LIKE 'file:%';
