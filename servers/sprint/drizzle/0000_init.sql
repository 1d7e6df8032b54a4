CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`story_id` integer NOT NULL,
	`sprint_id` integer,
	`type` text NOT NULL,
	`from_value` text,
	`to_value` text,
	`points` real,
	`at` text NOT NULL,
	`actor` text,
	FOREIGN KEY (`story_id`) REFERENCES `stories`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `events_sprint` ON `events` (`sprint_id`,`at`);--> statement-breakpoint
CREATE INDEX `events_story` ON `events` (`story_id`,`id`);--> statement-breakpoint
CREATE TABLE `sprints` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team` text NOT NULL,
	`name` text NOT NULL,
	`goal` text DEFAULT '' NOT NULL,
	`start_date` text NOT NULL,
	`end_date` text NOT NULL,
	`capacity` real,
	`status` text DEFAULT 'planned' NOT NULL,
	`started_at` text,
	`closed_at` text,
	`summary` text,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sprints_team_status` ON `sprints` (`team`,`status`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `sprints_one_active` ON `sprints` (`team`) WHERE status = 'active';--> statement-breakpoint
CREATE TABLE `stories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team` text NOT NULL,
	`title` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`acceptance` text DEFAULT '[]' NOT NULL,
	`points` real,
	`priority` text DEFAULT 'none' NOT NULL,
	`assignee` text,
	`status` text DEFAULT 'todo' NOT NULL,
	`sprint_id` integer,
	`rank` text NOT NULL,
	`ticket_ref` text,
	`version` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`sprint_id`) REFERENCES `sprints`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `stories_team_rank` ON `stories` (`team`,`rank`);--> statement-breakpoint
CREATE INDEX `stories_sprint_status_rank` ON `stories` (`sprint_id`,`status`,`rank`);--> statement-breakpoint
CREATE INDEX `stories_team_sprint_rank` ON `stories` (`team`,`sprint_id`,`rank`);