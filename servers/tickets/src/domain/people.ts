import { quoteText } from '@shipyard/core';
import { sql } from 'drizzle-orm';
import { distance } from 'fastest-levenshtein';
import { listOf, OPEN_STATUSES, sqlList, type Tx } from './model.js';

/** How two spellings of one name compare: composed, in lower case (any letter, not only A-Z). */
export const foldName = (name: string) => name.normalize('NFC').toLowerCase();

/** The closest known names a note about a new one offers. */
const CLOSEST_SHOWN = 3;

/**
 * The known people: every name a ticket or comment has used (the people table) and the configured user,
 * one spelling for each name as folded (the configured user's, else the first in order).
 */
export function knownPeople(db: Tx, user: string | undefined): Map<string, string> {
  const names = db.all<{ name: string }>(sql`SELECT name FROM people ORDER BY name`).map((row) => row.name);
  const known = new Map<string, string>();
  for (const name of user === undefined ? names : [user, ...names]) {
    const key = foldName(name);
    if (!known.has(key)) known.set(key, name);
  }
  return known;
}

/** A person argument matched to the known people: their spelling, or the name given and a note. */
export interface MatchedPerson {
  name: string;
  /** Set when no ticket, comment or configured user has used the name: it names the closest known ones. */
  note?: string;
}

/**
 * Match a name (as a tool resolved it: null is nobody) to the known people without regard to case, so `ANA`
 * stores ana's spelling. A name nobody has used is kept as given, with a note naming the closest known
 * people, since it may be a typo that would make a new person.
 */
export function matchPerson(
  db: Tx,
  name: string | null,
  user: string | undefined,
  field: string,
): MatchedPerson | null {
  if (name === null) return null;
  const known = knownPeople(db, user);
  const key = foldName(name);
  const same = known.get(key);
  if (same !== undefined) return { name: same };
  const closest = [...known.entries()]
    .map(([folded, spelling]) => ({ spelling, d: distance(key, folded) }))
    .sort((a, b) => a.d - b.d || a.spelling.localeCompare(b.spelling))
    .slice(0, CLOSEST_SHOWN)
    .map((person) => quoteText(person.spelling));
  const known_ = closest.length
    ? `; the closest known: ${listOf(closest, 'or')}`
    : '; nobody else is known yet';
  // A reporter is kept as created: only a new ticket can carry another.
  const fix =
    field === 'reporter'
      ? 'If it is a typo, delete_ticket and create it again: a reporter stays as created'
      : `If it is a typo, set ${field} again with update_ticket`;
  return {
    name,
    note:
      `${field} ${quoteText(name)} is a new name: no ticket, comment or configured user has used it${known_}. ` +
      `${fix} (list_people lists everyone)`,
  };
}

export interface Person {
  name: string;
  /** Open tickets assigned to them. */
  open: number;
}

/** Most people list_people answers with. */
export const PEOPLE_SHOWN = 500;

/**
 * Everyone known (see {@link knownPeople}), by name, with the open tickets assigned to each, counted over
 * every spelling of the name in older data.
 */
export function listPeople(db: Tx, user: string | undefined): { count: number; people: Person[] } {
  const known = knownPeople(db, user);
  const open = new Map<string, number>();
  const rows = db.all<{ assignee: string; n: number }>(
    sql`SELECT assignee, count(*) AS n FROM tickets
        WHERE status IN (${sqlList(OPEN_STATUSES)}) AND assignee IS NOT NULL GROUP BY assignee`,
  );
  for (const row of rows) {
    const key = foldName(row.assignee);
    open.set(key, (open.get(key) ?? 0) + row.n);
  }
  const people = [...known.entries()]
    .map(([key, name]) => ({ name, open: open.get(key) ?? 0 }))
    .sort((a, b) => foldName(a.name).localeCompare(foldName(b.name)) || a.name.localeCompare(b.name));
  return { count: people.length, people: people.slice(0, PEOPLE_SHOWN) };
}
