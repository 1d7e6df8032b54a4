-- The last change of any ticket's title or description, found at once: a relevance page of search_tickets
-- reads it to tell whether words were swapped since the page before, which moves bm25's weights without
-- changing the index's counts of tickets and words (src/domain/search.ts INDEX_STATS). Partial, so a
-- create's 'created' history row does not write to it.
CREATE INDEX `history_text_edits_idx` ON `history` (`id`) WHERE "history"."field" IN ('title', 'description');
