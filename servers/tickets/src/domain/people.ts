import { InvalidInput, quoteText } from '@shipyard/core';
import { distance } from 'fastest-levenshtein';
import { listOf } from './model.js';

/** How two spellings of one name compare: composed, in lower case (any letter, not only A-Z). */
export const foldName = (name: string) => name.normalize('NFC').toLowerCase();

/** The closest known names a note about a new one offers. */
const CLOSEST_SHOWN = 3;

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
  known: ReadonlyMap<string, string>,
  name: string | null,
  field: string,
): MatchedPerson | null {
  if (name === null) return null;
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
 * The known people: every name a ticket or comment has used (`names`, in name order) and the configured
 * user, one spelling for each name as folded (the configured user's, else the first in order).
 */
export function knownPeople(names: readonly string[], user: string | undefined): Map<string, string> {
  const known = new Map<string, string>();
  for (const name of user === undefined ? names : [user, ...names]) {
    const key = foldName(name);
    if (!known.has(key)) known.set(key, name);
  }
  return known;
}

/**
 * Everyone known (see {@link knownPeople}), by name, with the open tickets assigned to each, counted over
 * every spelling of the name in older data.
 */
export function peopleList(data: PeopleData, user: string | undefined): { count: number; people: Person[] } {
  const known = knownPeople(data.names, user);
  const open = new Map<string, number>();
  for (const row of data.open) {
    const key = foldName(row.assignee);
    open.set(key, (open.get(key) ?? 0) + row.open);
  }
  const people = [...known.entries()]
    .map(([key, name]) => ({ name, open: open.get(key) ?? 0 }))
    .sort((a, b) => foldName(a.name).localeCompare(foldName(b.name)) || a.name.localeCompare(b.name));
  return { count: people.length, people: people.slice(0, PEOPLE_SHOWN) };
}

/** Words a model writes for nobody, which would otherwise be stored (or searched for) as a person's name. */
const NOBODY_WORDS = new Set(['unassigned', 'nobody', 'no one', 'no-one', 'noone', 'null', 'nil', 'n/a']);

/**
 * A person argument as `fields.person` gives it: "me" is the configured user (--user / SHIPYARD_USER),
 * "none" is nobody, any other the name itself; "unassigned" and other words for nobody are refused, naming
 * "none" (but for the configured user's own name).
 */
export function resolvePerson(name: string, user: string | undefined): string | null {
  const word = name.toLowerCase();
  if (word === 'none') return null;
  // Unless it is the configured user's name, which "me" stores.
  if (NOBODY_WORDS.has(word) && word !== user?.toLowerCase()) {
    throw new InvalidInput(`"${name}" is not a name: nobody is written "none"`, {
      hint: 'Pass "none" for nobody, or the name of a person',
    });
  }
  if (word !== 'me') return name;
  if (!user) {
    throw new InvalidInput('"me" needs a configured user, and this server has none', {
      hint: 'Name the person instead, or start the server with --user / SHIPYARD_USER',
    });
  }
  return user;
}

/**
 * Person arguments resolved (see {@link resolvePerson}) and matched to the known people (see matchPerson):
 * each name as known, or as given with a note naming the closest known people. Left out stays left out.
 */
export async function knownNames<K extends string>(
  /** Every name a ticket or comment has used (the store's knownNames), read only when a name is given. */
  names: () => Promise<readonly string[]>,
  given: Partial<Record<K, string | null | undefined>>,
  user: string | undefined,
): Promise<{ names: Partial<Record<K, string | null>>; note?: string }> {
  const resolved = (Object.entries(given) as [K, string | null | undefined][])
    .filter((entry): entry is [K, string | null] => entry[1] !== undefined)
    .map(([field, value]) => [field, value === null ? null : resolvePerson(value, user)] as const);
  const known = resolved.some(([, name]) => name !== null) ? knownPeople(await names(), user) : new Map();
  const matched: Partial<Record<K, string | null>> = {};
  const notes: string[] = [];
  for (const [field, name] of resolved) {
    const person = matchPerson(known, name, field);
    matched[field] = person?.name ?? null;
    if (person?.note) notes.push(person.note);
  }
  return notes.length ? { names: matched, note: notes.join('. ') } : { names: matched };
}

/** Everyone known, and the open tickets assigned to each spelling of a name, as one snapshot read them. */
export interface PeopleData {
  /** Every name a ticket or comment has used, in name order. */
  names: string[];
  /** Open tickets by assignee as stored. */
  open: { assignee: string; open: number }[];
}
