CREATE TABLE "job_logs" (
	"job_id" bigint PRIMARY KEY NOT NULL,
	"data" "bytea" NOT NULL,
	"bytes" integer NOT NULL,
	"total_lines" integer NOT NULL,
	"errors" text COLLATE "C" NOT NULL,
	"cached_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "jobs" (
	"id" bigint PRIMARY KEY NOT NULL,
	"run_id" bigint NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"conclusion" text COLLATE "C",
	"attempt" integer DEFAULT 1 NOT NULL,
	"created_at" text COLLATE "C",
	"started_at" text COLLATE "C",
	"completed_at" text COLLATE "C",
	"steps" text COLLATE "C" DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "reports" (
	"id" serial PRIMARY KEY NOT NULL,
	"repo" text COLLATE "C" NOT NULL,
	"source" text COLLATE "C" NOT NULL,
	"run_id" bigint,
	"commit_sha" text COLLATE "C",
	"ingested_at" text COLLATE "C" NOT NULL,
	"tests" integer NOT NULL,
	"failures" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "runs" (
	"id" bigint PRIMARY KEY NOT NULL,
	"repo" text COLLATE "C" NOT NULL,
	"workflow_id" bigint NOT NULL,
	"workflow" text COLLATE "C" NOT NULL,
	"run_number" integer NOT NULL,
	"branch" text COLLATE "C",
	"commit_sha" text COLLATE "C" NOT NULL,
	"event" text COLLATE "C" NOT NULL,
	"status" text COLLATE "C" NOT NULL,
	"conclusion" text COLLATE "C",
	"attempt" integer DEFAULT 1 NOT NULL,
	"created_at" text COLLATE "C" NOT NULL,
	"started_at" text COLLATE "C",
	"finished_at" text COLLATE "C",
	"url" text COLLATE "C" DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sync_state" (
	"repo" text COLLATE "C" PRIMARY KEY NOT NULL,
	"last_updated" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "test_commits" (
	"test_id" integer NOT NULL,
	"commit_sha" text COLLATE "C" NOT NULL,
	"runs" integer DEFAULT 0 NOT NULL,
	"first_fail_at" text COLLATE "C",
	"last_pass_at" text COLLATE "C",
	"flaky" integer DEFAULT 0 NOT NULL,
	"flaky_at" text COLLATE "C",
	"last_seen" text COLLATE "C" NOT NULL,
	CONSTRAINT "test_commits_test_id_commit_sha_pk" PRIMARY KEY("test_id","commit_sha")
);
--> statement-breakpoint
CREATE TABLE "test_results" (
	"id" serial PRIMARY KEY NOT NULL,
	"test_id" integer NOT NULL,
	"report_id" integer NOT NULL,
	"run_id" bigint,
	"commit_sha" text COLLATE "C",
	"status" text COLLATE "C" NOT NULL,
	"duration_ms" integer NOT NULL,
	"message" text COLLATE "C" DEFAULT '' NOT NULL,
	"seen_at" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tests" (
	"id" serial PRIMARY KEY NOT NULL,
	"repo" text COLLATE "C" NOT NULL,
	"suite" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"runs_seen" integer DEFAULT 0 NOT NULL,
	"commits_seen" integer DEFAULT 0 NOT NULL,
	"last_seen" text COLLATE "C" DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "workflows" (
	"id" bigint PRIMARY KEY NOT NULL,
	"repo" text COLLATE "C" NOT NULL,
	"name" text COLLATE "C" NOT NULL,
	"path" text COLLATE "C" NOT NULL,
	"state" text COLLATE "C" NOT NULL
);
--> statement-breakpoint
CREATE INDEX "job_logs_cached" ON "job_logs" USING btree ("cached_at");--> statement-breakpoint
CREATE INDEX "jobs_run" ON "jobs" USING btree ("run_id");--> statement-breakpoint
CREATE INDEX "reports_source" ON "reports" USING btree ("repo","source");--> statement-breakpoint
CREATE INDEX "runs_repo_created" ON "runs" USING btree ("repo","created_at");--> statement-breakpoint
CREATE INDEX "runs_workflow_created" ON "runs" USING btree ("workflow_id","created_at");--> statement-breakpoint
CREATE INDEX "runs_commit" ON "runs" USING btree ("commit_sha");--> statement-breakpoint
CREATE INDEX "test_commits_flaky" ON "test_commits" USING btree ("test_id","last_seen") WHERE flaky = 1;--> statement-breakpoint
CREATE INDEX "test_results_run" ON "test_results" USING btree ("run_id","status");--> statement-breakpoint
CREATE INDEX "test_results_test" ON "test_results" USING btree ("test_id");--> statement-breakpoint
CREATE UNIQUE INDEX "tests_key" ON "tests" USING btree ("repo","suite","name");--> statement-breakpoint
CREATE INDEX "workflows_repo" ON "workflows" USING btree ("repo");--> statement-breakpoint
-- Flaky tests: per test and commit, when it first failed and last passed. A commit is flaky for a test once
-- it passed after it had failed there. Kept by a trigger, so results inserted any way (a report, a seed) count.
CREATE FUNCTION "test_results_tally"() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
	UPDATE tests SET runs_seen = runs_seen + 1, last_seen = greatest(last_seen, NEW.seen_at) WHERE id = NEW.test_id;
	IF NEW.commit_sha IS NULL THEN
		RETURN NULL;
	END IF;
	INSERT INTO test_commits (test_id, commit_sha, runs, first_fail_at, last_pass_at, flaky, last_seen)
	VALUES (NEW.test_id, NEW.commit_sha, 0, NULL, NULL, 0, NEW.seen_at)
	ON CONFLICT (test_id, commit_sha) DO NOTHING;
	IF FOUND THEN
		UPDATE tests SET commits_seen = commits_seen + 1 WHERE id = NEW.test_id;
	END IF;
	UPDATE test_commits SET
		runs = runs + 1,
		first_fail_at = CASE WHEN NEW.status = 'failed' AND (first_fail_at IS NULL OR NEW.seen_at < first_fail_at)
			THEN NEW.seen_at ELSE first_fail_at END,
		last_pass_at = CASE WHEN NEW.status = 'passed' AND (last_pass_at IS NULL OR NEW.seen_at > last_pass_at)
			THEN NEW.seen_at ELSE last_pass_at END,
		last_seen = greatest(last_seen, NEW.seen_at)
	WHERE test_id = NEW.test_id AND commit_sha = NEW.commit_sha;
	UPDATE test_commits SET flaky = 1, flaky_at = last_pass_at
	WHERE test_id = NEW.test_id AND commit_sha = NEW.commit_sha AND flaky = 0 AND first_fail_at < last_pass_at;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "test_results_tally" AFTER INSERT ON "test_results" FOR EACH ROW
WHEN (NEW.status IN ('passed', 'failed')) EXECUTE FUNCTION "test_results_tally"();
