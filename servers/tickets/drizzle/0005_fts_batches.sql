-- A new ticket no longer enters the full-text index in its own transaction: FTS5 writes a segment for every
-- transaction that adds to it, which made the index a third of a create's SQLite time (five of some twenty
-- pages written, and the words' tokenizing). `tickets_indexed.upto` is the last ticket id the index holds;
-- the tickets past it are indexed in one batch (a few µs a ticket, against some 45 µs one by one) before a
-- search reads the index, and by the create whose id is 256 past it (src/domain/indexing.ts). The ids SQLite
-- gives only grow (AUTOINCREMENT), so the tickets past `upto` are exactly those created since; a row inserted
-- by hand with a smaller id would never be indexed. An update or a delete of a ticket past `upto` leaves the
-- index alone: the index holds nothing of it yet, and a 'delete' of values it does not hold would corrupt an
-- external-content index. A later migration that rebuilds the index must set `upto` to the largest ticket id,
-- or the next batch indexes the tickets past the old `upto` a second time.
CREATE TABLE `tickets_indexed` (
	`id` integer PRIMARY KEY NOT NULL,
	`upto` integer NOT NULL,
	CONSTRAINT "tickets_indexed_one_row" CHECK("tickets_indexed"."id" = 1)
);
--> statement-breakpoint
INSERT INTO `tickets_indexed` (`id`, `upto`) SELECT 1, coalesce(max(`id`), 0) FROM `tickets`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_insert`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_delete`;--> statement-breakpoint
DROP TRIGGER `tickets_fts_update`;--> statement-breakpoint
CREATE TRIGGER `tickets_fts_delete` AFTER DELETE ON `tickets` WHEN old.id <= (SELECT upto FROM tickets_indexed) BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description, facet) VALUES ('delete', old.id, old.title, old.description, old.facet);
END;
--> statement-breakpoint
CREATE TRIGGER `tickets_fts_update` AFTER UPDATE OF title, description, status, priority_rank ON `tickets`
	WHEN old.id <= (SELECT upto FROM tickets_indexed) BEGIN
	INSERT INTO tickets_fts(tickets_fts, rowid, title, description, facet) VALUES ('delete', old.id, old.title, old.description, old.facet);
	INSERT INTO tickets_fts(rowid, title, description, facet) VALUES (new.id, new.title, new.description, new.facet);
END;
