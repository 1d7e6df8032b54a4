/** Text search on PostgreSQL: the stored document of a snippet, and user text as a query. */
import { type FtsWord, ftsWords } from '@shipyard/db';
import { identifierWords, type SnippetFields } from '../../domain/model.js';

/** The text search configuration: English stemming, as the SQLite index's porter tokenizer. */
export const CONFIG = 'english';

/**
 * Text as SQLite's unicode61 tokenizer splits it: words of letters and digits, diacritics removed, every
 * other character a separator (so `console.log` is two words, as it is there, not one host name).
 */
export function plainWords(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The parts of the stored document, by weight: title A, tags and description B, code and its identifier parts D. */
export function documentParts(fields: SnippetFields): { a: string; b: string; d: string } {
  return {
    a: plainWords(fields.title),
    b: plainWords(`${fields.tags.join(' ')} ${fields.description}`),
    d: plainWords(`${fields.code} ${identifierWords(fields.code)}`),
  };
}

/** SQL of the stored document from the parameters $a, $b, $d (numbers given). */
export const documentSql = (a: number, b: number, d: number) =>
  `setweight(to_tsvector('${CONFIG}', $${a}), 'A') || setweight(to_tsvector('${CONFIG}', $${b}), 'B') || ` +
  `setweight(to_tsvector('${CONFIG}', $${d}), 'D')`;

/**
 * User text as a tsquery that requires every word, in SQL over parameters from `first` on; undefined when
 * the text holds no word. Each word reaches PostgreSQL only as a parameter of plainto_tsquery, never as
 * tsquery syntax; a prefix word (`word*`, when allowed) goes to to_tsquery as `word:*`, with the word
 * reduced to letters and digits first.
 */
export function tsQuery(
  words: readonly FtsWord[],
  first: number,
): { sql: string; params: string[] } | undefined {
  const parts: string[] = [];
  const params: string[] = [];
  for (const word of words) {
    const text = plainWords(word.text).replace(/\s+/g, '');
    if (!text) continue;
    params.push(word.prefix ? `${text}:*` : text);
    const n = first + params.length - 1;
    parts.push(word.prefix ? `to_tsquery('${CONFIG}', $${n})` : `plainto_tsquery('${CONFIG}', $${n})`);
  }
  return parts.length > 0 ? { sql: `(${parts.join(' && ')})`, params } : undefined;
}

export { ftsWords };
