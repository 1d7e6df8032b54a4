-- 0007's row id and checks with the same results, their lists of statuses spelt as comparisons. SQLite
-- evaluates `x IN (...)` of more than two values by filling a temporary b-tree with the list, every time a
-- statement needs it: each create (the insert trigger), status change and edit of an indexed ticket (the row
-- id, old and new) built and dropped one. Its page cache went back to the system and was taken again each time
-- (two `brk` calls and four to five page faults per create): in a loop of creates in one process, half of a
-- create's time. Comparisons take none, and give the same answer for every value, NULL included.
-- The parent index holds only the tickets that have a parent, so a create without one writes a page less to
-- the log; every query of it asks for a parent (`parent_id = ?`), which SQLite knows a partial index holds.
DROP TRIGGER `tickets_fts_rowid_insert`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_rowid_update`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_delete`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_update`;--> statement-breakpoint
ALTER TABLE `tickets` DROP COLUMN `fts_rowid`;--> statement-breakpoint
ALTER TABLE `tickets` ADD `fts_rowid` integer GENERATED ALWAYS AS ((CASE
	WHEN `priority_rank` BETWEEN 0 AND 4
		AND (`status` = 'backlog' OR `status` = 'todo' OR `status` = 'in_progress' OR `status` = 'in_review'
			OR `status` = 'done' OR `status` = 'cancelled')
	THEN `priority_rank` * 6 + CASE `status` WHEN 'backlog' THEN 0 WHEN 'todo' THEN 1 WHEN 'in_progress' THEN 2
		WHEN 'in_review' THEN 3 WHEN 'done' THEN 4 ELSE 5 END
	ELSE 31 END << 30) | `id`) VIRTUAL;--> statement-breakpoint
CREATE TRIGGER `tickets_fts_rowid_insert` AFTER INSERT ON `tickets`
	WHEN new.id >= 1073741824 OR new.priority_rank NOT BETWEEN 0 AND 4
		OR NOT (new.status = 'backlog' OR new.status = 'todo' OR new.status = 'in_progress'
			OR new.status = 'in_review' OR new.status = 'done' OR new.status = 'cancelled') BEGIN
	SELECT RAISE(ABORT, 'a ticket needs an id under 2^30, a status of the workflow and a priority rank of 0 to 4 (the search index holds them in its row ids)');
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_rowid_update` BEFORE UPDATE OF id, status, priority_rank ON `tickets`
	WHEN new.id >= 1073741824 OR new.priority_rank NOT BETWEEN 0 AND 4
		OR NOT (new.status = 'backlog' OR new.status = 'todo' OR new.status = 'in_progress'
			OR new.status = 'in_review' OR new.status = 'done' OR new.status = 'cancelled') BEGIN
	SELECT RAISE(ABORT, 'a ticket needs an id under 2^30, a status of the workflow and a priority rank of 0 to 4 (the search index holds them in its row ids)');
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_delete` AFTER DELETE ON `tickets` WHEN old.id <= (SELECT upto FROM tickets_indexed) BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description) VALUES ('delete', old.fts_rowid, old.title, old.description);
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_update` AFTER UPDATE OF title, description, status, priority_rank ON `tickets`
	WHEN old.id <= (SELECT upto FROM tickets_indexed) BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description) VALUES ('delete', old.fts_rowid, old.title, old.description);
	INSERT INTO tickets_fts(rowid, title, description) VALUES (new.fts_rowid, new.title, new.description);
END;
--> statement-breakpoint
DROP INDEX `tickets_parent_idx`;--> statement-breakpoint
CREATE INDEX `tickets_parent_idx` ON `tickets` (`parent_id`) WHERE "tickets"."parent_id" is not null;