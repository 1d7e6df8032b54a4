-- The last change of any ticket's title or description, found at once: a relevance page of search_tickets
-- reads it to tell whether a text changed since the page before, which moves bm25's weights (src/domain/
-- search.ts INDEX_STATE). Partial, so a create's 'created' history row does not write to it.
CREATE INDEX `history_text_edits_idx` ON `history` (`id`) WHERE "history"."field" IN ('title', 'description');
