/**
 * Ticket text search on PostgreSQL: the user's words as a tsquery over `tickets.search`, and its rank.
 *
 * User text never reaches PostgreSQL as tsquery syntax. It is split here as src/domain/search.ts splits it
 * for SQLite (blanks, control characters and ASCII punctuation separate words; a `*` right after a word of
 * two or more characters makes it a prefix; nothing else is special), and each word is a bound parameter:
 * a whole word goes through plainto_tsquery, which reads no operators; a prefix is a lexeme quoted here in
 * SQL (quotes and backslashes doubled) and cast, so whatever it holds it is one lexeme. All words must match.
 *
 * Differences from SQLite, where PostgreSQL does not allow the same:
 * - Stems are snowball English (porter2), SQLite's are porter: a few words stem differently (generously,
 *   dying), so such a word matches a slightly different set of forms.
 * - A prefix matches the stored stems that start with it, and the stems of the words it may start (the same
 *   endings as src/domain/prefix.ts), not FTS5's stem-prefix search: the hits are those of SQLite but for
 *   the words the two stemmers treat differently.
 * - Rank is ts_rank_cd with a title word weighing a thousand description words, not bm25: the order of hits
 *   of equal title matches may differ, as ts_rank_cd counts no document frequencies or lengths.
 * - Punctuation beyond ASCII, Latin-1, U+2000-U+206F and CJK's is left to PostgreSQL's parser, whose idea of
 *   a letter depends on the database's locale (with the C locale every non-ASCII character is a letter).
 *   Likewise lower case: the C locale folds ASCII letters only (Straße, Ωmega keep their capitals).
 * - Accents are removed by Unicode decomposition (U+0300-U+036F), not by unicode61's own table.
 */
import { type SQL, sql } from 'drizzle-orm';
import { stemCandidates } from '../../domain/search.js';
import { SEARCH_CONFIG } from './schema.js';

export interface SearchWord {
  /** The word as typed (search_fold folds it in SQL, as it folds the stored text). */
  text: string;
  /** Written as `word*`: any word starting with it. */
  prefix: boolean;
}

/** A run of text between blanks and ASCII punctuation, and the `*` right after it if there is one. */
const CHUNK = /([^\s!-/:-@[-`{-~]+)(\*?)/gu;
/** Characters search_fold (drizzle-postgres/0000_init.sql) turns into blanks beyond ASCII punctuation. */
const SEPARATORS =
  /[\u0080-\u00a9\u00ab-\u00b1\u00b4\u00b6-\u00b8\u00bb\u00bf\u00d7\u00f7\u061c\u2000-\u206f\u3000-\u3003\u3008-\u3011\u3014-\u301f]+/u;
/** A word has a letter or a digit; a run of symbols or lone marks is no word. */
const HAS_LETTER = /[\p{L}\p{N}]/u;

/**
 * The words of a search, in order, each once. No word (blank text, `*`, only symbols) gives none: the
 * caller tells a blank query (a listing) from one with no word in it, as domain/search.ts does.
 */
export function searchWords(text: string): SearchWord[] {
  // NUL and the other control characters separate words (PostgreSQL text cannot hold NUL).
  const plain = text.normalize('NFC').replace(/\p{Cc}/gu, ' ');
  const words: SearchWord[] = [];
  const seen = new Set<string>();
  for (const match of plain.matchAll(CHUNK)) {
    const parts = (match[1] ?? '').split(SEPARATORS).filter((part) => HAS_LETTER.test(part));
    parts.forEach((part, i) => {
      const word = {
        text: part,
        prefix: match[2] === '*' && i === parts.length - 1 && [...part].length >= 2,
      };
      const key = `${word.prefix ? '*' : ''}${word.text.toLowerCase()}`;
      if (seen.has(key)) return;
      seen.add(key);
      words.push(word);
    });
  }
  return words;
}

/**
 * Words that start like `prefix` and whose stems may be shorter than it (integrat: integration, stored as
 * integr): the prefix cut where an ending may start, followed by that ending.
 */
export const prefixCandidates = (prefix: string): string[] =>
  stemCandidates(prefix.toLowerCase(), (base) => [...base].length);

const config = sql.raw(`'${SEARCH_CONFIG}'::regconfig`);

/** A text expression as one quoted tsquery lexeme (`'it''s'`): nothing in it is read as syntax. */
const lexeme = (text: SQL) => sql`('''' || replace(replace(${text}, '\\', '\\\\'), '''', '''''') || '''')`;

/**
 * `word*`: the stored stems that start with the folded word, or any stem of the words it may start
 * (see {@link prefixCandidates}).
 */
function prefixQuery(word: string): SQL {
  // A prefix with nothing left once folded (only punctuation) is no lexeme, and adds nothing.
  const folded = sql`nullif(btrim(search_fold(${word}::text)), '')`;
  const start = sql`coalesce((${lexeme(folded)} || ':*')::tsquery, ''::tsquery)`;
  const stems = sql`(SELECT string_agg(${lexeme(sql`stem`)}, ' | ')
    FROM unnest(tsvector_to_array(to_tsvector(${config}, search_fold(${prefixCandidates(word).join(' ')}::text)))) AS stem)`;
  return sql`(${start} || coalesce(${stems}::tsquery, ''::tsquery))`;
}

/** One word as a tsquery; a whole word through plainto_tsquery, stemmed as the stored text is. */
const wordQuery = (word: SearchWord): SQL =>
  word.prefix ? prefixQuery(word.text) : sql`plainto_tsquery(${config}, search_fold(${word.text}::text))`;

/**
 * The tsquery every word of which must match, or undefined when there is no word. Each word is split again
 * as {@link searchWords} splits text, so a word made elsewhere holds no blank, punctuation or NUL either.
 */
export function tsQuery(words: readonly SearchWord[]): SQL | undefined {
  const split = searchWords(words.map((word) => `${word.text}${word.prefix ? '*' : ''}`).join(' '));
  if (split.length === 0) return undefined;
  return sql`(${sql.join(split.map(wordQuery), sql` && `)})`;
}

/** ts_rank_cd weights {D, C, B, A}: a title (A) word weighs a thousand description (B) words, as bm25's 1000:1. */
const WEIGHTS = sql.raw(`'{0.1, 0.2, 0.001, 1.0}'::float4[]`);

/** The relevance of a ticket's `search` document to `query` (higher is better). */
export const rankOf = (search: SQL, query: SQL): SQL<number> =>
  sql<number>`ts_rank_cd(${WEIGHTS}, ${search}, ${query})`;

/** Whether a ticket's `search` document matches `query`. */
export const matchesQuery = (search: SQL, query: SQL): SQL<boolean> => sql<boolean>`(${search} @@ ${query})`;
