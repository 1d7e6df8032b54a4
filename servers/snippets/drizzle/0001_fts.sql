-- Full-text index of snippets, keyed by snippets.n: title, tags, description, code, and the parts of the
-- code's compound identifiers (debounceInput: debounce input). Contentless: the text lives in snippets; the
-- server writes and deletes index rows in the transaction that writes the snippet.
CREATE VIRTUAL TABLE `snippets_fts` USING fts5(
	title, tags, description, code, words,
	content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
