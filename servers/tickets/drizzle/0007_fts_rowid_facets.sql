-- Status and priority in the search index's row ids instead of a word of its own (0004): a ticket's row in
-- tickets_fts is `fts_rowid`, its priority's rank and status as one number (rank * 8 + the status's place in
-- the workflow, backlog 0 to cancelled 5) shifted 40 bits left, with the ticket id below (ids stay under
-- 2^40). FTS5 keeps each word's list of tickets in row id order, so the tickets of one priority, and of
-- neighbouring statuses within it, sit together in every list: a search filtered by them reads that stretch
-- of each word's list (a rowid range, which FTS5 seeks to) instead of the whole list intersected with the
-- facet words' lists. A hit's status and priority are read off its row id, without the tickets table. The
-- `facet` column and its word go; U+0001 is no longer a word character. Its ticket id is `rowid & 2^40 - 1`.
-- An external-content index must be told the values it holds to delete a row, so the triggers name the old
-- row id when status or priority change. The index is rebuilt from the tickets, all of them (upto follows).
DROP TRIGGER `tickets_fts_delete`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_update`;--> statement-breakpoint
DROP TABLE `tickets_fts`;--> statement-breakpoint
ALTER TABLE `tickets` DROP COLUMN `facet`;--> statement-breakpoint
ALTER TABLE `tickets` ADD `fts_rowid` integer GENERATED ALWAYS AS (((`priority_rank` * 8 + CASE `status`
	WHEN 'backlog' THEN 0 WHEN 'todo' THEN 1 WHEN 'in_progress' THEN 2 WHEN 'in_review' THEN 3 WHEN 'done' THEN 4
	WHEN 'cancelled' THEN 5 ELSE 7 END) << 40) | `id`) VIRTUAL;--> statement-breakpoint
CREATE VIRTUAL TABLE `tickets_fts` USING fts5(
	title,
	description,
	content='tickets',
	content_rowid='fts_rowid',
	tokenize='porter unicode61 remove_diacritics 2 separators ''⁦⁧⁨⁩؜'''
);
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
INSERT INTO tickets_fts(tickets_fts) VALUES ('rebuild');--> statement-breakpoint
UPDATE `tickets_indexed` SET `upto` = (SELECT coalesce(max(`id`), 0) FROM `tickets`);
