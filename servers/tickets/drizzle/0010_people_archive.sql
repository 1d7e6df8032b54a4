-- The people a name can mean: every assignee, reporter and comment author, kept by triggers so that any
-- writer (an older server too) adds the names it stores. A name already known, in any ASCII case, is left
-- as first written; an existing name is a lookup, not a write.
CREATE TABLE `people` (
	`name` text PRIMARY KEY NOT NULL COLLATE NOCASE
) WITHOUT ROWID;
--> statement-breakpoint
INSERT OR IGNORE INTO `people` (`name`)
	SELECT `assignee` FROM `tickets` WHERE `assignee` IS NOT NULL
	UNION SELECT `reporter` FROM `tickets` WHERE `reporter` IS NOT NULL
	UNION SELECT `author` FROM `comments` WHERE `author` IS NOT NULL;
--> statement-breakpoint
CREATE TRIGGER `people_ticket_insert` AFTER INSERT ON `tickets` BEGIN
	INSERT OR IGNORE INTO `people` (`name`) SELECT new.`assignee` WHERE new.`assignee` IS NOT NULL;
	INSERT OR IGNORE INTO `people` (`name`) SELECT new.`reporter` WHERE new.`reporter` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `people_ticket_update` AFTER UPDATE OF `assignee`, `reporter` ON `tickets` BEGIN
	INSERT OR IGNORE INTO `people` (`name`) SELECT new.`assignee` WHERE new.`assignee` IS NOT NULL;
	INSERT OR IGNORE INTO `people` (`name`) SELECT new.`reporter` WHERE new.`reporter` IS NOT NULL;
END;
--> statement-breakpoint
CREATE TRIGGER `people_comment_insert` AFTER INSERT ON `comments` WHEN new.`author` IS NOT NULL BEGIN
	INSERT OR IGNORE INTO `people` (`name`) VALUES (new.`author`);
END;
--> statement-breakpoint
-- An archived project leaves lists and searches unless they ask for it.
ALTER TABLE `projects` ADD `archived_at` text;
