CREATE TABLE `job_logs` (
	`job_id` integer PRIMARY KEY NOT NULL,
	`data` blob NOT NULL,
	`bytes` integer NOT NULL,
	`total_lines` integer NOT NULL,
	`errors` text NOT NULL,
	`cached_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `job_logs_cached` ON `job_logs` (`cached_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY NOT NULL,
	`run_id` integer NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`conclusion` text,
	`attempt` integer DEFAULT 1 NOT NULL,
	`created_at` text,
	`started_at` text,
	`completed_at` text,
	`steps` text DEFAULT '[]' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_run` ON `jobs` (`run_id`);--> statement-breakpoint
CREATE TABLE `reports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repo` text NOT NULL,
	`source` text NOT NULL,
	`run_id` integer,
	`commit_sha` text,
	`ingested_at` text NOT NULL,
	`tests` integer NOT NULL,
	`failures` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reports_source` ON `reports` (`repo`,`source`);--> statement-breakpoint
CREATE TABLE `runs` (
	`id` integer PRIMARY KEY NOT NULL,
	`repo` text NOT NULL,
	`workflow_id` integer NOT NULL,
	`workflow` text NOT NULL,
	`run_number` integer NOT NULL,
	`branch` text,
	`commit_sha` text NOT NULL,
	`event` text NOT NULL,
	`status` text NOT NULL,
	`conclusion` text,
	`attempt` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	`url` text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `runs_repo_created` ON `runs` (`repo`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_workflow_created` ON `runs` (`workflow_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `runs_commit` ON `runs` (`commit_sha`);--> statement-breakpoint
CREATE TABLE `sync_state` (
	`repo` text PRIMARY KEY NOT NULL,
	`last_updated` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `test_commits` (
	`test_id` integer NOT NULL,
	`commit_sha` text NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`first_fail_at` text,
	`last_pass_at` text,
	`flaky` integer DEFAULT 0 NOT NULL,
	`flaky_at` text,
	`last_seen` text NOT NULL,
	PRIMARY KEY(`test_id`, `commit_sha`)
);
--> statement-breakpoint
CREATE INDEX `test_commits_flaky` ON `test_commits` (`test_id`,`last_seen`) WHERE flaky = 1;--> statement-breakpoint
CREATE TABLE `test_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`test_id` integer NOT NULL,
	`report_id` integer NOT NULL,
	`run_id` integer,
	`commit_sha` text,
	`status` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`message` text DEFAULT '' NOT NULL,
	`seen_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `test_results_run` ON `test_results` (`run_id`,`status`);--> statement-breakpoint
CREATE INDEX `test_results_test` ON `test_results` (`test_id`);--> statement-breakpoint
CREATE TABLE `tests` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`repo` text NOT NULL,
	`suite` text NOT NULL,
	`name` text NOT NULL,
	`runs_seen` integer DEFAULT 0 NOT NULL,
	`commits_seen` integer DEFAULT 0 NOT NULL,
	`last_seen` text DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tests_key` ON `tests` (`repo`,`suite`,`name`);--> statement-breakpoint
CREATE TABLE `workflows` (
	`id` integer PRIMARY KEY NOT NULL,
	`repo` text NOT NULL,
	`name` text NOT NULL,
	`path` text NOT NULL,
	`state` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workflows_repo` ON `workflows` (`repo`);