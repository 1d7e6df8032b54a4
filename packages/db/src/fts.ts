/**
 * FTS5 MATCH expressions from user text, with no FTS5 syntax of the user's reaching SQLite: every word
 * becomes a quoted FTS5 string (inner quotes doubled), joined with an explicit AND or OR. `AND`, `NEAR`,
 * parentheses, `:`, `^` and quotes in the text are searched as words or dropped as separators; only a `*`
 * written right after a word makes a prefix term, and only when the caller allows prefixes.
 */

/** A run of letters, digits and marks, and the `*` right after it if there is one. */
const WORD = /([\p{L}\p{N}\p{M}]+)(\*?)/gu;

export interface FtsWord {
  text: string;
  prefix: boolean;
}

/** The words of user text (letters, digits and marks), in order, each at most once; `word*` marks a prefix. */
export function ftsWords(text: string, options: { prefix?: boolean } = {}): FtsWord[] {
  const seen = new Set<string>();
  const words: FtsWord[] = [];
  for (const match of text.normalize('NFC').matchAll(WORD)) {
    const word = { text: match[1] ?? '', prefix: options.prefix === true && match[2] === '*' };
    const key = `${word.prefix ? '*' : ''}${word.text.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    words.push(word);
  }
  return words;
}

/** One FTS5 string: `"word"` with inner quotes doubled, and `*` after it for a prefix. */
export const ftsString = (text: string, prefix = false) =>
  `"${text.replaceAll('"', '""')}"${prefix ? '*' : ''}`;

/** Words any of which may match, as one MATCH expression; undefined when there are none. */
export function ftsAnyOf(words: readonly string[]): string | undefined {
  return words.length > 0 ? words.map((text) => ftsString(text)).join(' OR ') : undefined;
}

/** Words that must all match, as one MATCH expression; undefined when there are none. */
export function ftsAllOf(words: readonly string[]): string | undefined {
  return words.length > 0 ? words.map((text) => ftsString(text)).join(' AND ') : undefined;
}

/**
 * User text as a MATCH expression that requires every word (`join: 'OR'` for any), or undefined when the
 * text holds no word. With `prefix`, `word*` is a prefix term.
 */
export function ftsQuery(
  text: string,
  options: { prefix?: boolean; join?: 'AND' | 'OR' } = {},
): string | undefined {
  const words = ftsWords(text, options);
  // An explicit AND: FTS5 reads juxtaposition as AND only between plain strings.
  return words.length > 0
    ? words.map((word) => ftsString(word.text, word.prefix)).join(` ${options.join ?? 'AND'} `)
    : undefined;
}
