-- Full-text index over ticket titles and descriptions (FTS5, bm25 ranking), kept in step by triggers.
-- External content: the text lives once, in tickets; the index stores only tokens.
CREATE VIRTUAL TABLE `tickets_fts` USING fts5(
	title,
	description,
	content='tickets',
	content_rowid='id',
	tokenize='porter unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_insert` AFTER INSERT ON `tickets` BEGIN
	INSERT INTO tickets_fts(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_delete` AFTER DELETE ON `tickets` BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_update` AFTER UPDATE OF title, description ON `tickets` BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
	INSERT INTO tickets_fts(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
