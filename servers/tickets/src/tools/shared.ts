import { listedByType, MAX_NAME_CHARS, personName, z } from '@shipyard/core';
import { MAX_COMMENT_CHARS } from '../domain/comments.js';
import { LINK_TYPES, shownLinks } from '../domain/links.js';
import { chars, normaliseLabel, PRIORITIES, TYPES } from '../domain/model.js';
import type { LinkResult } from '../store/types.js';

// Output schemas name enum fields as plain strings: the input schemas already list the values, and
// repeating them in every output would cost tokens in each tools/list.
export const TicketSummarySchema = z.object({
  key: z.string(),
  title: z.string(),
  type: z.string(),
  status: z.string(),
  priority: z.string(),
  assignee: z.string().nullable(),
  labels: z.array(z.string()),
  updated_at: z.string(),
});

export const TicketSchema = TicketSummarySchema.extend({
  project: z.string(),
  description: z.string(),
  reporter: z.string().nullable(),
  estimate: z.number().nullable(),
  due_date: z.string().nullable(),
  parent: z.string().nullable(),
  resolution: z.string().nullable(),
  version: z.number().int(),
  created_at: z.string(),
});

/**
 * YYYY-MM-DD that is a real calendar day (a short pattern instead of the 300-character one of z.iso.date).
 * The calendar check runs only on a value of that shape, so `2026-12-1` is told the shape alone.
 */
const isoDate = z
  .string()
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, {
    // An empty one is how some ask for no date: say how that is said.
    error: (issue) =>
      issue.input === ''
        ? 'must be a date as YYYY-MM-DD; for no date leave it out (update_ticket: null clears it)'
        : 'must be a date as YYYY-MM-DD, e.g. 2026-12-01',
    abort: true,
  })
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
  }, 'must be a real calendar date')
  // 0026-12-01 is 2026-12-01 with a typo, not a date anything is due on.
  .refine((value) => value >= '1900', 'must be a date from 1900 on, e.g. 2026-12-01');

/** A character that shows: not a blank, a control or a format (zero-width) character. */
const VISIBLE = /[^\s\p{Cc}\p{Cf}]/u;

/**
 * One line with something visible in it: no control characters or line and paragraph separators (U+2028,
 * U+2029), not only blanks or zero-width characters.
 */
const oneVisibleLine = (text: string) => !/[\p{Cc}\p{Zl}\p{Zp}]/u.test(text) && VISIBLE.test(text);
const ONE_VISIBLE_LINE = 'must be one line with a visible character and no control characters';

/**
 * Text made one line: a line break of any kind (and the blanks around it) or a tab becomes a space, other
 * control characters (NUL, bell…) go; in Unicode's composed form (NFC), as every stored text.
 */
const oneLine = (text: string) =>
  text
    .replace(/\s*[\r\n\v\f\u0085\u2028\u2029]+\s*|\t/g, ' ')
    .replace(/\p{Cc}/gu, '')
    .trim()
    .normalize('NFC');

/**
 * Text in Unicode's composed form (NFC), as it is stored, before its length is checked: `é` sent as e and a
 * combining accent is one character, as the same text sent composed. (An overwrite, not a transform: the
 * limit after it stays in the JSON Schema.)
 */
const composed = (text: string) => text.normalize('NFC');

/**
 * The length (in characters, as the input limits count them) checked again after the text was cleaned: the
 * composed form of a few letters is longer (क़ is two characters in NFC).
 */
const within = (max: number) =>
  [(text: string) => chars(text) <= max, `must have at most ${max} characters`] as const;

/**
 * A one-line name or title of at most `max` characters with something visible in it (see {@link oneLine}).
 * The visible-character rule refuses an empty one, so no `.min(1)`: every minLength costs tokens in tools/list.
 */
export const lineOfText = (max: number) =>
  z
    .string()
    .trim()
    .overwrite(composed)
    .max(max)
    .transform(oneLine)
    .refine((text) => VISIBLE.test(text), 'must have a visible character')
    .refine(...within(max));

/**
 * Markdown as written, but for control characters other than tab, newline and carriage return (NUL, an
 * escape that would recolour a terminal showing it): nobody means to store those. In the composed form
 * (NFC), so `é` typed as e and a combining accent is the é already stored, not a change.
 */
export const withoutControls = (text: string) => text.replace(/(?![\t\n\r])\p{Cc}/gu, '').normalize('NFC');

/** Markdown of at most `max` characters, cleaned by {@link withoutControls}. */
export const markdown = (max: number) =>
  z
    .string()
    .overwrite(composed)
    .max(max)
    .transform(withoutControls)
    .refine(...within(max));

/** A project key as typed: PROJECT_KEY in any case. */
export const PROJECT_KEY_ANY_CASE = /^[A-Za-z][A-Za-z0-9]{1,9}$/;

/**
 * Names other trackers give the fields a ticket tool takes, which a model may carry over (core answers them
 * with "did you mean"; see the `aliases` of create_ticket and update_ticket).
 */
export const FIELD_ALIASES = {
  name: 'title',
  tags: 'labels',
  tag: 'labels',
  owner: 'assignee',
  assigned_to: 'assignee',
  body: 'description',
  due: 'due_date',
  points: 'estimate',
  story_points: 'estimate',
} as const;

/**
 * Said to a caller who passes `comment` to a tool that changes a ticket without taking one (a tool's
 * `elsewhere`): core would name transition_ticket, which takes a comment too, but only with a status change.
 */
export const COMMENT_ELSEWHERE = 'A comment is added with add_ticket_comment, its text as `body`';

/** Input field definitions reused by several tools, so their descriptions and bounds agree. */
export const fields = {
  // An existing project's key, in any case (`ship` is SHIP). Not checked against the key rules here: text
  // that is no key is answered by the lookup (domain/keys.ts projectNotFound), which tells a project's name
  // (`Mobile App`) its key and a ticket key its project, and text too short for a key what a key is (so no
  // minLength, which would cost tokens in every tool that takes a project). At most a project name's length.
  project: z
    .string()
    .trim()
    .max(100)
    .refine((key) => key !== '', 'must not be empty or blank')
    .describe('Project key, e.g. SHIP'),
  key: z.string().max(24).describe('Ticket key, e.g. SHIP-42'),
  // One line, and something visible must be left (not only zero-width characters).
  title: lineOfText(200).describe('One-line summary'),
  description: markdown(50_000).describe('Details, markdown'),
  type: z.enum(TYPES).describe('bug, feature, task or chore'),
  priority: z.enum(PRIORITIES).describe('urgent, high, medium, low or none'),
  // The name as stored (core's personName: `@ana` is ana; no bidi controls, so it is what it looks like).
  // Empty, or `@` and nothing visible, is no name (no .min(1): see lineOfText), nor is a name that still
  // starts with `@` (stored, `@bob` would be bob when copied back), as core refuses for --user; the composed
  // form may be longer than the name as typed.
  person: z
    .string()
    .trim()
    .overwrite(composed)
    .max(MAX_NAME_CHARS, { abort: true })
    .transform(personName)
    .refine(oneVisibleLine, ONE_VISIBLE_LINE)
    .refine(
      (name) => !name.startsWith('@'),
      'must name someone: one @ before a name is dropped (@ana is ana), a name does not start with @',
    )
    .refine(...within(MAX_NAME_CHARS))
    .describe('Name, "me" or "none"'),
  labels: z
    .array(
      z
        .string()
        .trim()
        .overwrite(composed)
        .max(50, { abort: true })
        .refine(oneVisibleLine, ONE_VISIBLE_LINE)
        // Stored lower-case, where some letters grow (İ is i and a dot): the label filter takes 50 at most.
        .refine(
          (label) => chars(normaliseLabel(label)) <= 50,
          'must have at most 50 characters in lower case',
        ),
    )
    .max(20)
    .describe('Labels, stored lower-case'),
  // A filter on one label: empty is refused rather than read as "any label" (leave it out for that).
  label: z
    .string()
    .trim()
    .overwrite(composed)
    .max(50)
    .refine(oneVisibleLine, ONE_VISIBLE_LINE)
    .describe('Has this label'),
  estimate: z.number().min(0).max(10_000).describe('Estimate in points'),
  due_date: isoDate.describe('Due date, YYYY-MM-DD'),
  parent: z.string().max(24).describe('Parent ticket key'),
  // Markdown kept exactly as written (leading blanks and trailing newlines can matter), but never blank.
  comment: markdown(MAX_COMMENT_CHARS).refine(
    (body) => VISIBLE.test(body),
    'must not be blank (it needs a visible character)',
  ),
};

/** An enum value as a model may write it, without case or separators (`In Progress` is in_progress). */
const loose = (value: string) => value.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * A filter of one enum value or a list of them (at most `max`), listed as a list: a lone value is read as a
 * list of one (the schema says so in its description, which costs fewer tokens than a second schema). Values
 * are taken in any case and with or without separators, as core takes a lone enum's.
 */
export function oneOrList<const T extends readonly [string, ...string[]]>(values: T, max: number) {
  const ease = (value: unknown) =>
    typeof value === 'string' ? (values.find((allowed) => loose(allowed) === loose(value)) ?? value) : value;
  return z.preprocess(
    (value) => (Array.isArray(value) ? value.map(ease) : [ease(value)]),
    z.array(z.enum(values)).max(max),
  );
}

/** Input and output shared by link_tickets and unlink_tickets. */
export const linkInput = {
  key: fields.key,
  type: z.enum(LINK_TYPES).describe('How key relates to target'),
  target: z.string().max(24).describe('The other ticket key'),
};

export const linkOutput = {
  /**
   * Keys of the linked tickets by type as read from `key`, LINKS_SHOWN a type; empty types are left out.
   * Listed by type: the descriptions say what it holds.
   */
  links: listedByType(z.record(z.string(), z.array(z.string()))),
};

/**
 * The answer of both tools: the links of the source ticket as keys, non-empty types only. A link just made
 * is always among them (first, when its type has more than are shown), so the answer confirms it.
 */
export function linkAnswer(result: LinkResult) {
  const links = shownLinks(result.links, (ticket) => ticket.key);
  const shown = links[result.type];
  const made = result.links[result.type].some((ticket) => ticket.key === result.target);
  if (made && shown && !shown.includes(result.target))
    links[result.type] = [result.target, ...shown.slice(0, -1)];
  return { links };
}
