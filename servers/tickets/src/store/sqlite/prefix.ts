/**
 * Prefix terms (`deploy*`) over a porter-stemmed FTS5 index.
 *
 * The index holds porter stems, and FTS5 stems query text too, a prefix included: `deploy*` is read as
 * `deploi*` (porter turns a final y into i), which misses deployment (stored as `deploy`). A prefix can also
 * run past the stem its word is stored as: environment is stored as `environ`, so `environm*` finds nothing.
 * Porter is not idempotent either (`deploy` itself is stemmed to `deploi`), so a stored stem cannot simply be
 * sent back as a term. What works is sending words, which FTS5 stems as it stemmed the index:
 * - the prefix as a word that porter stems to exactly the prefix (deploy as deployment, ins as insing), with
 *   `*`, so it matches every stem that starts with the prefix; when there is none, the longest start of the
 *   prefix that porter leaves as it is (install*: instal*);
 * - the stems shorter than the prefix, through the words they come from: the prefix, or the prefix cut where
 *   an ending porter removes may start, followed by that ending (integrat* -> integration: integr;
 *   environm* -> environment: environ), each sent whole.
 * How the index folds a word and what porter makes of it are asked of SQLite itself, through temporary FTS5
 * tables with the index's tokenizer (tables of this connection, in memory; the database file is not written).
 */
import { preparedOnce } from '@shipyard/db';
import { stemCandidates } from '../../domain/search.js';
import type { TicketsDb } from './model.js';

/**
 * How tickets_fts folds text into words before porter stems them: lower case, no accents, and the bidi
 * isolates and Arabic letter mark as separators (drizzle/0003_fts_bidi_separators.sql says why).
 */
const FOLD_TOKENIZE = "unicode61 remove_diacritics 2 separators '\u2066\u2067\u2068\u2069\u061c'";
/** The tokenizer of tickets_fts (drizzle/0009_fts_rowid_is_ticket_id.sql); a test holds the two together. */
export const FTS_TOKENIZE = `porter ${FOLD_TOKENIZE}`;

/** Endings tried after a prefix for a word that porter stems to exactly the prefix. */
const EXACT_ENDINGS = ['', 'ing', 'ment', 'ness', 'ed', 'ance', 'ism', 'er', 'able'];

/** The words (tokens) of each text as a tokenizer makes them, in order. */
type Tokens = (texts: readonly string[]) => string[][];

/** A tokenizer of this connection: a temporary FTS5 table that takes a row a text, read back and cleared. */
function probe(db: TicketsDb, name: string, tokenize: string): Tokens {
  const sqlite = db.$client;
  sqlite.exec(
    `CREATE VIRTUAL TABLE IF NOT EXISTS temp.${name} USING fts5(w, tokenize = '${tokenize.replaceAll("'", "''")}');
     CREATE VIRTUAL TABLE IF NOT EXISTS temp.${name}_terms USING fts5vocab(temp, ${name}, instance);`,
  );
  const add = sqlite.prepare<[number, string]>(`INSERT INTO temp.${name} (rowid, w) VALUES (?, ?)`);
  const read = sqlite.prepare<[], { term: string; doc: number; at: number }>(
    `SELECT term, doc, "offset" AS at FROM temp.${name}_terms`,
  );
  const clear = sqlite.prepare(`DELETE FROM temp.${name}`);
  return (texts) => {
    try {
      for (const [i, text] of texts.entries()) add.run(i, text);
      const tokens = texts.map((): string[] => []);
      for (const { term, doc, at } of read.all()) {
        const list = tokens[doc];
        if (list) list[at] = term;
      }
      return tokens.map((list) => list.filter((term) => term !== undefined));
    } finally {
      clear.run();
    }
  };
}

/** tickets_fts's folding, and its stems of words (one stem a word, in order). */
const prepareProbes = (db: TicketsDb) => {
  const fold = probe(db, 'fold_probe', FOLD_TOKENIZE);
  const stems = probe(db, 'stem_probe', FTS_TOKENIZE);
  return { fold, stem: (words: readonly string[]) => stems([words.join(' ')])[0] ?? [] };
};

/** The words of each text as tickets_fts folds and splits them (lower case, no accents, its own separators). */
export const indexWords = (db: TicketsDb, texts: readonly string[]) =>
  preparedOnce(db, prepareProbes).fold(texts);

/**
 * The FTS5 terms (OR-ed) for `word*`: `"word…"*` for the stems that start with the prefix, and `"word…"` for
 * each shorter stem (see above). `word` is one word as the index folds it (search.ts's tokenize makes it so:
 * `Łatwy` as łatwy, `ＡＰＩ` as ａｐｉ).
 */
export function prefixTerms(db: TicketsDb, word: string): string[] {
  const { stem } = preparedOnce(db, prepareProbes);
  const tries = EXACT_ENDINGS.map((ending) => word + ending);
  const exact = stem(tries);
  let start = word;
  let sent = tries.find((_, i) => exact[i] === word);
  if (sent === undefined) {
    const starts = Array.from({ length: word.length - 2 }, (_, i) => word.slice(0, word.length - 1 - i));
    const stems = stem(starts);
    start = starts.find((text, i) => stems[i] === text) ?? word;
    sent = start;
  }
  const candidates = stemCandidates(word, (base) => base.length);
  const stems = stem(candidates);
  const seen = new Set<string>();
  const terms = [`"${sent}"*`];
  candidates.forEach((candidate, i) => {
    const shorter = stems[i] ?? '';
    if (shorter === '' || shorter.startsWith(start) || seen.has(shorter)) return;
    seen.add(shorter);
    terms.push(`"${candidate}"`);
  });
  return terms;
}
