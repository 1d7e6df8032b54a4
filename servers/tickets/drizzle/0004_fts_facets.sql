-- Status and priority in the search index: each ticket's pair of them is one word of a third column, `facet`
-- (U+0001, the status without its underscore, U+0001, the priority's rank: U+0001 todo U+0001 1 for a todo
-- ticket of high priority), so a text search filtered by status and priority asks the index for those words
-- instead of checking every hit of its words against the tickets table. U+0001 joins the word (it is one of
-- the tokenizer's `tokenchars`); no stored text holds it (titles and descriptions lose control characters,
-- and older text loses it below) and a query loses it too, so no searched word can be a facet word. `facet`
-- is a virtual column of tickets (computed, not stored), which the index reads as its content; the index is
-- recreated with the third column, its triggers also follow status and priority changes, and it is rebuilt
-- from the tickets.
ALTER TABLE `tickets` ADD `facet` text GENERATED ALWAYS AS (char(1) || replace(`status`, '_', '') || char(1) || `priority_rank`) VIRTUAL;--> statement-breakpoint
DROP TRIGGER `tickets_fts_insert`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_delete`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_update`;--> statement-breakpoint
DROP TABLE `tickets_fts`;--> statement-breakpoint
-- Text stored before titles and descriptions lost their control characters may hold U+0001 (the field
-- separator of FIX logs, say). The index read it as a space; now it would join words, so it becomes one.
UPDATE `tickets` SET `title` = replace(`title`, char(1), ' '), `description` = replace(`description`, char(1), ' ')
	WHERE instr(`title`, char(1)) > 0 OR instr(`description`, char(1)) > 0;--> statement-breakpoint
CREATE VIRTUAL TABLE `tickets_fts` USING fts5(
	title,
	description,
	facet,
	content='tickets',
	content_rowid='id',
	tokenize='porter unicode61 remove_diacritics 2 tokenchars '''' separators ''⁦⁧⁨⁩؜'''
);
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_insert` AFTER INSERT ON `tickets` BEGIN
	INSERT INTO tickets_fts(rowid, title, description, facet) VALUES (new.id, new.title, new.description, new.facet);
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_delete` AFTER DELETE ON `tickets` BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description, facet) VALUES ('delete', old.id, old.title, old.description, old.facet);
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_update` AFTER UPDATE OF title, description, status, priority_rank ON `tickets` BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description, facet) VALUES ('delete', old.id, old.title, old.description, old.facet);
	INSERT INTO tickets_fts(rowid, title, description, facet) VALUES (new.id, new.title, new.description, new.facet);
END;
--> statement-breakpoint
INSERT INTO tickets_fts(tickets_fts) VALUES ('rebuild');
