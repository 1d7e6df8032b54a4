CREATE TABLE `snippet_tags` (
	`tag` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`tag`, `n`),
	FOREIGN KEY (`n`) REFERENCES `snippets`(`n`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `snippet_tags_n_idx` ON `snippet_tags` (`n`);--> statement-breakpoint
CREATE TABLE `snippet_uses` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`n` integer NOT NULL,
	`outcome` text NOT NULL,
	`note` text DEFAULT '' NOT NULL,
	`at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`n`) REFERENCES `snippets`(`n`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `snippet_uses_n_idx` ON `snippet_uses` (`n`);--> statement-breakpoint
CREATE TABLE `snippet_versions` (
	`n` integer NOT NULL,
	`version` integer NOT NULL,
	`title` text NOT NULL,
	`language` text,
	`description` text NOT NULL,
	`tags` text NOT NULL,
	`source` text,
	`saved_at` text NOT NULL,
	`code` text NOT NULL,
	PRIMARY KEY(`n`, `version`),
	FOREIGN KEY (`n`) REFERENCES `snippets`(`n`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `snippets` (
	`n` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`title` text NOT NULL,
	`language` text,
	`description` text DEFAULT '' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`source` text,
	`hash` text NOT NULL,
	`version` integer DEFAULT 1 NOT NULL,
	`worked` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`last_used_at` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`head` text DEFAULT '' NOT NULL,
	`lines` integer DEFAULT 0 NOT NULL,
	`code` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `snippets_id_unique` ON `snippets` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `snippets_hash_unique` ON `snippets` (`hash`);--> statement-breakpoint
CREATE INDEX `snippets_language_idx` ON `snippets` (`language`,`updated_at`);--> statement-breakpoint
CREATE INDEX `snippets_updated_idx` ON `snippets` (`updated_at`);--> statement-breakpoint
CREATE INDEX `snippets_used_idx` ON `snippets` (("worked" + "failed"),`updated_at`);