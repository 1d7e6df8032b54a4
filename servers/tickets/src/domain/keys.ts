import { asShown, InvalidInput, NotFound, named, quoteText } from '@shipyard/core';
import { clip, listOf, PROJECT_KEY, PROJECT_KEY_RULE, projectOfKey, TICKET_KEY } from './model.js';

/**
 * How keys are read and what an unknown one is told. A store finds the facts a message names (the projects
 * named like the text, the tickets a number or a loose spelling may mean) and these rules word it.
 */

/** A key or project key as stored: trimmed, upper case. */
export const normaliseKey = (key: string) => key.trim().toUpperCase();

/**
 * A project's name as two spellings of it compare: as it looks (core's asShown: without the characters that
 * show nothing, such as zero-width spaces, soft hyphens and bidi controls, and each run of spaces one),
 * composed, in lower case.
 */
export const projectNameKey = (name: string) => asShown(name).normalize('NFC').toLowerCase();

/** A project as an error about it names it. */
export interface NamedProject {
  key: string;
  name: string;
}

/**
 * No project has key `given` (as given, trimmed). A ticket key names its project; a project's name
 * (`Shipyard` for SHIP) is answered with its key, so a model passes that key rather than create a second
 * project; other text that cannot be a key says what a key looks like. `byName` are the projects whose name
 * is the text (see {@link projectNameKey}), in key order.
 */
export function projectNotFound(given: string, byName: readonly NamedProject[]): NotFound | InvalidInput {
  const text = given.trim();
  const shown = named(clip(text, 40));
  const upper = text.toUpperCase();
  if (TICKET_KEY.test(upper)) {
    return new InvalidInput(`"${shown}" is a ticket key; its project is ${projectOfKey(upper)}`, {
      hint: `Pass the project key, ${projectOfKey(upper)}`,
    });
  }
  const [only] = byName;
  if (only && byName.length === 1) {
    return new NotFound(
      `No project with key "${shown}"; ${quoteText(only.name)} is the name of project ${only.key}`,
      {
        hint: `Pass the project key, ${only.key}`,
      },
    );
  }
  // Projects made before names were kept apart may share one.
  if (only) {
    const keys = byName.map((project) => project.key);
    return new NotFound(
      `No project with key "${shown}"; ${quoteText(only.name)} is the name of projects ${listOf(keys)}`,
      {
        hint: `Pass one of the project keys: ${keys.join(', ')}`,
      },
    );
  }
  if (!PROJECT_KEY.test(upper)) {
    return new InvalidInput(`No project with key "${shown}": a key is ${PROJECT_KEY_RULE}`, {
      hint: 'Call list_projects to see the project keys',
    });
  }
  return new NotFound(`No project with key "${shown}"`, {
    hint: 'Call list_projects to see the project keys, or create_project to add one',
  });
}

/** A number alone (`42`, `#42`). */
const NUMBER_ONLY = /^#?\s*0*([1-9][0-9]{0,8})$/;
/**
 * A project-like start and a number at the end, with or without separators between (`SHIP1`, `SHIP 01`,
 * `SHIP–1` with a dash that is not a hyphen).
 */
const LOOSE_KEY = /^[A-Z][A-Z0-9]*[\s_.:#\p{Pd}]*[0-9]+$/u;
/** Keys written into a text, to tell a list of them from one written loosely. */
const KEY_IN_TEXT = /[A-Z][A-Z0-9]{1,9}\p{Pd}[0-9]+/gu;
/** The keys a number alone names, at most this many. */
export const NUMBERED_SHOWN = 5;

/** The number of a text that is a number alone (`42`, `#42`), or undefined. */
export const numberOnly = (normalised: string) => NUMBER_ONLY.exec(normalised)?.[1];

/**
 * The keys a text written another way may mean, each split of its final number once: `SHIP21` may be SHIP-21
 * or SHIP2-1, `browse/SHIP-01` is SHIP-1. None for text with other words or numbers in it (`SHIP-1, SHIP-2`).
 */
export function looseKeys(normalised: string): string[] {
  const text = (normalised.split('/').at(-1) ?? '').replace(/[^A-Z0-9]+$/, '');
  // A key is at most 20 characters; longer text is not one written loosely (and is not worth the regex).
  if (text.length > 40 || !LOOSE_KEY.test(text)) return [];
  const digits = /[0-9]+$/.exec(text)?.[0] ?? '';
  const keys = new Set<string>();
  for (let cut = text.length - digits.length; cut < text.length; cut++) {
    const project = text.slice(0, cut).replace(/[\s_.:#\p{Pd}]+$/u, '');
    const number = text.slice(cut).replace(/^0+/, '');
    const key = `${project}-${number}`;
    if (TICKET_KEY.test(key)) keys.add(key);
  }
  return [...keys];
}

/** What a store found for text that is not a key (see {@link notAKey}). */
export interface NotAKeyFacts {
  /** The keys of the number alone (numberOnly), in project key order, at most NUMBERED_SHOWN + 1. */
  numbered: readonly string[];
  /** The project the text names as a project key, when it is one. */
  project?: { lastNumber: number } | undefined;
  /** The tickets among looseKeys, in key order. */
  meant: readonly { key: string; title: string }[];
}

/** Refuse text that is not a key, naming the existing tickets it most likely means when there are any. */
export function notAKey(given: string, normalised: string, facts: NotAKeyFacts): InvalidInput {
  const message = `"${named(clip(given, 40))}" is not a ticket key; keys look like SHIP-42`;
  const keys = facts.numbered;
  if (keys.length > 0) {
    const shown = keys.slice(0, NUMBERED_SHOWN).join(' or ');
    const more = keys.length > NUMBERED_SHOWN ? " or another project's" : '';
    return new InvalidInput(`${message}, with the project first: ${shown}${more}`, {
      hint: `Call again with ${keys.length === 1 ? 'that key' : 'the key of the project you mean'}`,
    });
  }
  if ((normalised.match(KEY_IN_TEXT)?.length ?? 0) > 1) {
    return new InvalidInput(`${message}: it names more than one ticket`, {
      hint: 'Call once per ticket, with one key each time',
    });
  }
  const project = facts.project;
  if (project) {
    return new InvalidInput(`${message}: ${normalised} is a project key`, {
      hint:
        project.lastNumber === 0
          ? `${normalised} has no tickets yet`
          : `A ticket key adds its number (${normalised}-1 to ${normalised}-${project.lastNumber}); call search_tickets with project ${normalised} to find it`,
    });
  }
  const meant = facts.meant;
  if (meant.length > 0) {
    const titled = meant.map((ticket) => `${ticket.key} (${quoteText(clip(ticket.title, 60))})`);
    return new InvalidInput(`${message}; did you mean ${titled.join(' or ')}?`, {
      hint: meant.length === 1 ? `Call again with key ${meant[0]?.key}` : 'Call again with the key you mean',
    });
  }
  return new InvalidInput(message, {
    hint: 'Pass a key as shown by search_tickets or get_ticket, e.g. SHIP-42',
  });
}

/**
 * NotFound for a well-formed key, saying whether its project exists (`project`, with its last number) and how
 * far its keys go.
 */
export function noSuchTicket(key: string, project: { lastNumber: number } | undefined): NotFound {
  const projectKey = projectOfKey(key);
  if (!project) {
    return new NotFound(`No ticket ${key}: there is no project ${projectKey}`, {
      hint: 'Call list_projects to see the project keys',
    });
  }
  const upTo =
    project.lastNumber === 0
      ? `${projectKey} has no tickets yet`
      : `${projectKey}'s keys go from ${projectKey}-1 to ${projectKey}-${project.lastNumber}`;
  return new NotFound(`No ticket ${key}: ${upTo}`, { hint: 'Call search_tickets to find the key' });
}

/**
 * A key's error as an argument's (`` `target`: No ticket SHIP-9… ``), as it must be where a tool takes two
 * keys, or a key among other arguments. `noneHint` answers what some write for no ticket (`none`, `null`,
 * `-` or a blank). Other errors stay as they are.
 */
export function argumentError(error: unknown, name: string, value: string, noneHint?: string): unknown {
  if (!(error instanceof NotFound || error instanceof InvalidInput)) return error;
  const none = noneHint !== undefined && /^\s*(?:none|null|-)?\s*$/i.test(value);
  const options = { hint: none ? noneHint : error.hint, details: error.details };
  const message = `\`${name}\`: ${error.message}`;
  return error instanceof NotFound ? new NotFound(message, options) : new InvalidInput(message, options);
}
