-- Status and priority in the search index's row ids instead of a word of its own (0004). A ticket's row in
-- tickets_fts is `fts_rowid`: its priority's rank and status as one number (rank * 6 + the status's place in
-- the workflow, backlog 0 to cancelled 5: 0 to 29) shifted 30 bits left, and the ticket id below (ids stay
-- under 2^30, a billion). FTS5 keeps each word's list of tickets in row id order, so the tickets of one
-- priority, and of neighbouring statuses within it, sit together in every list: a search filtered by them
-- reads that stretch of each word's list (a rowid range, which FTS5 seeks to) instead of the whole list
-- intersected with the facet words' lists, and reads each hit's status and priority off its row id. A hit's
-- ticket id is `rowid & (2^30 - 1)`. Row ids under 2^35 take five bytes where SQLite stores them: bm25 took
-- longer per hit the bigger they were (against ids under 2^21, 6% at five bytes, 12% at six).
-- Triggers keep the row ids whole: a ticket id of 2^30 or more, a status the workflow does not have or a
-- priority rank outside 0 to 4 is refused, from the server or by hand (a ticket written so before this has
-- code 31, which no filter asks for).
-- The `facet` column and its word go, and U+0001 is no longer a word character. An external-content index
-- must be told the values it holds to delete a row, so the triggers name the old row id when status or
-- priority change. The index is built again from the tickets, all of them (and `upto` follows), in row id
-- order: FTS5 starts a new segment whenever a row id comes lower than the one before it in a transaction, and
-- its 'rebuild' reads the tickets in id order (19 segments for 100,000 tickets here, against 8 in order).
DROP TRIGGER `tickets_fts_delete`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_update`;--> statement-breakpoint
DROP TABLE `tickets_fts`;--> statement-breakpoint
ALTER TABLE `tickets` DROP COLUMN `facet`;--> statement-breakpoint
ALTER TABLE `tickets` ADD `fts_rowid` integer GENERATED ALWAYS AS ((CASE
	WHEN `priority_rank` BETWEEN 0 AND 4
		AND `status` IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'cancelled')
	THEN `priority_rank` * 6 + CASE `status` WHEN 'backlog' THEN 0 WHEN 'todo' THEN 1 WHEN 'in_progress' THEN 2
		WHEN 'in_review' THEN 3 WHEN 'done' THEN 4 ELSE 5 END
	ELSE 31 END << 30) | `id`) VIRTUAL;--> statement-breakpoint
CREATE TRIGGER `tickets_fts_rowid_insert` AFTER INSERT ON `tickets`
	WHEN new.id >= 1073741824 OR new.priority_rank NOT BETWEEN 0 AND 4
		OR new.status NOT IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'cancelled') BEGIN
	SELECT RAISE(ABORT, 'a ticket needs an id under 2^30, a status of the workflow and a priority rank of 0 to 4 (the search index holds them in its row ids)');
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_rowid_update` BEFORE UPDATE OF id, status, priority_rank ON `tickets`
	WHEN new.id >= 1073741824 OR new.priority_rank NOT BETWEEN 0 AND 4
		OR new.status NOT IN ('backlog', 'todo', 'in_progress', 'in_review', 'done', 'cancelled') BEGIN
	SELECT RAISE(ABORT, 'a ticket needs an id under 2^30, a status of the workflow and a priority rank of 0 to 4 (the search index holds them in its row ids)');
END;
--> statement-breakpoint
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
INSERT INTO tickets_fts(rowid, title, description) SELECT fts_rowid, title, description FROM tickets ORDER BY fts_rowid;--> statement-breakpoint
UPDATE `tickets_indexed` SET `upto` = (SELECT coalesce(max(`id`), 0) FROM `tickets`);
