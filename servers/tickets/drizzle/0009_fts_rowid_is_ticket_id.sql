-- A ticket's row in tickets_fts is its id again, and the index holds only text. Status, priority and the
-- other filters are checked on the tickets table and its indexes, so the index no longer limits ticket ids or
-- repeats the workflow's lists, and a change of status or priority leaves it alone. The generated row id and
-- its checks (0007, 0008) go; the index is built again from the tickets and `upto` follows (0005).
DROP TRIGGER `tickets_fts_rowid_insert`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_rowid_update`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_delete`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_update`;--> statement-breakpoint
DROP TABLE `tickets_fts`;--> statement-breakpoint
ALTER TABLE `tickets` DROP COLUMN `fts_rowid`;--> statement-breakpoint
CREATE VIRTUAL TABLE `tickets_fts` USING fts5(
	title,
	description,
	content='tickets',
	content_rowid='id',
	tokenize='porter unicode61 remove_diacritics 2 separators ''⁦⁧⁨⁩؜'''
);
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_delete` AFTER DELETE ON `tickets` WHEN old.id <= (SELECT upto FROM tickets_indexed) BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_update` AFTER UPDATE OF title, description ON `tickets`
	WHEN old.id <= (SELECT upto FROM tickets_indexed) BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
	INSERT INTO tickets_fts(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
INSERT INTO tickets_fts(tickets_fts) VALUES ('rebuild');--> statement-breakpoint
UPDATE `tickets_indexed` SET `upto` = (SELECT coalesce(max(`id`), 0) FROM `tickets`);
