/** One write a crash-safety run sends: `text` holds its unique `word` and the run's `common` word. */
export interface CrashItem {
  /** 0-based, over the whole run. */
  n: number;
  /** A word no other item contains (fixed width, so no word is a prefix of another). */
  word: string;
  /** The word every item of the run contains. */
  common: string;
  /** The content to store; reading the item back must give exactly this. */
  text: string;
}

/** An item as the restarted server lists it. */
export interface StoredItem {
  id: string;
  text: string;
}

export interface RecoveryState {
  /** Every write sent so far, acknowledged or not. */
  issued: CrashItem[];
  /** Acknowledged writes: item word to the id the server answered with. */
  acknowledged: Map<string, string>;
  /** What the restarted server lists. */
  stored: StoredItem[];
  /** Item id to what reading it alone gives (undefined: not found); for the items checked that way. */
  readAlone?: Map<string, string | undefined>;
  /** Where the server has a search index: what searches found after the restart. */
  search?: {
    /** Item word to the ids a search for it finds, for the words searched. */
    hits: Map<string, string[]>;
    /** How many items a search for the common word counts. */
    commonTotal: number;
  };
}

/**
 * Compare what a restarted server holds with what was written before the kill. Returns one line per problem
 * (empty when the state is consistent): an acknowledged write missing or changed, an item that no write sent
 * (half-written) or shows twice, an item that lists but does not read alone, or a search index that
 * disagrees with the table.
 */
export function recoveryProblems(state: RecoveryState): string[] {
  const problems: string[] = [];
  const byText = new Map(state.issued.map((item) => [item.text, item]));
  const byWord = new Map(state.issued.map((item) => [item.word, item]));
  const storedById = new Map<string, StoredItem>();
  /** Item word to the ids of the stored items holding it whole. */
  const storedByWord = new Map<string, string[]>();

  for (const stored of state.stored) {
    if (storedById.has(stored.id)) problems.push(`id ${stored.id} is listed twice`);
    storedById.set(stored.id, stored);
    const item = byText.get(stored.text);
    if (!item) {
      problems.push(`${stored.id} reads ${quote(stored.text)}, which no write sent: a half-written item`);
      continue;
    }
    storedByWord.set(item.word, [...(storedByWord.get(item.word) ?? []), stored.id]);
  }
  for (const [word, ids] of storedByWord) {
    if (ids.length > 1) problems.push(`write ${word} is stored ${ids.length} times (${ids.join(', ')})`);
  }

  for (const [word, id] of state.acknowledged) {
    const item = byWord.get(word);
    const stored = storedById.get(id);
    if (!item) problems.push(`acknowledged write ${word} was never sent`);
    else if (!stored) problems.push(`acknowledged write ${word} (${id}) is missing after the restart`);
    else if (stored.text !== item.text) {
      problems.push(
        `acknowledged write ${word} (${id}) reads ${quote(stored.text)}, not ${quote(item.text)}`,
      );
    }
  }

  for (const [id, text] of state.readAlone ?? []) {
    const stored = storedById.get(id);
    if (stored && text === undefined) problems.push(`${id} is listed but reading it alone finds nothing`);
    else if (stored && text !== stored.text) {
      problems.push(`${id} lists as ${quote(stored.text)} but reads alone as ${quote(String(text))}`);
    } else if (!stored && text !== undefined) problems.push(`${id} reads alone but is not listed`);
  }

  if (state.search) {
    for (const [word, hits] of state.search.hits) {
      const want = [...(storedByWord.get(word) ?? [])].sort();
      const got = [...hits].sort();
      if (want.join('\n') !== got.join('\n')) {
        problems.push(
          `search for ${word} finds [${got.join(', ')}] but the table holds [${want.join(', ')}]: ` +
            'the index disagrees with the table',
        );
      }
    }
    const common = state.issued[0]?.common;
    if (state.search.commonTotal !== state.stored.length) {
      problems.push(
        `search for ${common ?? 'the common word'} counts ${state.search.commonTotal} items ` +
          `but ${state.stored.length} are stored`,
      );
    }
  }
  return problems;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}...` : text);
}
