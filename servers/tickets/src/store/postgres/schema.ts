import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  customType,
  doublePrecision,
  index,
  integer,
  pgTable,
  serial,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * Text compared and sorted by code point, as SQLite's BINARY collation does, whatever the database's
 * collation: times and due dates are ordered as strings, and `~` (no due date) sorts after every date.
 */
const ctext = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/** A text search document (read by the store in SQL only). */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** Times as SQLite writes them: ISO 8601 UTC text with milliseconds (2026-03-02T09:00:00.000Z). */
const now = sql`(to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * The SQL functions and text search configuration the migration defines (drizzle-postgres/0000_init.sql):
 * `nocase(text)` folds ASCII letters only, as SQLite's NOCASE does; `search_fold(text)` prepares text for
 * the `ticket_words` configuration (accents off, punctuation as blanks; search-sql.ts says why).
 */
export const SEARCH_CONFIG = 'ticket_words';

export const projects = pgTable('projects', {
  id: serial('id').primaryKey(),
  key: text('key').notNull().unique(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  lastNumber: integer('last_number').notNull().default(0),
  createdAt: ctext('created_at').notNull().default(now),
  archivedAt: ctext('archived_at'),
});

/**
 * Every name a ticket (assignee, reporter) or a comment (author) has used, kept by triggers as on SQLite
 * (0000_init.sql). A name is unique without regard to ASCII case (people_nocase_idx); the first spelling stays.
 */
export const people = pgTable(
  'people',
  {
    name: text('name').primaryKey(),
  },
  (t) => [uniqueIndex('people_nocase_idx').on(sql`nocase(${t.name})`)],
);

/**
 * Tickets, column for column as on SQLite: labels a JSON array of lower-case labels as text, times and due
 * dates as ISO text. `search` is the stored text search document: title weight A, description B.
 */
export const tickets = pgTable(
  'tickets',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    number: integer('number').notNull(),
    key: text('key').notNull().unique(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    type: text('type').notNull(),
    status: text('status').notNull().default('backlog'),
    priority: text('priority').notNull().default('none'),
    priorityRank: integer('priority_rank').notNull().default(4),
    assignee: text('assignee'),
    reporter: text('reporter'),
    labels: text('labels').notNull().default('[]'),
    estimate: doublePrecision('estimate'),
    dueDate: ctext('due_date'),
    parentId: integer('parent_id').references((): AnyPgColumn => tickets.id),
    resolution: text('resolution'),
    version: integer('version').notNull().default(1),
    createdAt: ctext('created_at').notNull().default(now),
    updatedAt: ctext('updated_at').notNull().default(now),
    search: tsvector('search')
      .notNull()
      .generatedAlwaysAs(
        sql.raw(
          `setweight(to_tsvector('${SEARCH_CONFIG}', search_fold("title")), 'A') || ` +
            `setweight(to_tsvector('${SEARCH_CONFIG}', search_fold("description")), 'B')`,
        ),
      ),
  },
  (t) => [
    uniqueIndex('tickets_project_number_idx').on(t.projectId, t.number),
    index('tickets_project_status_idx').on(t.projectId, t.status),
    index('tickets_status_idx').on(t.status),
    index('tickets_priority_idx').on(t.priorityRank),
    // Names compare without regard to ASCII case, as SQLite's COLLATE NOCASE index: `Ana` finds ana.
    index('tickets_assignee_idx').on(sql`nocase(${t.assignee})`),
    // Only the tickets with a parent; every query of it asks for one.
    index('tickets_parent_idx').on(t.parentId).where(sql`${t.parentId} IS NOT NULL`),
    index('tickets_updated_idx').on(t.updatedAt),
    index('tickets_created_idx').on(t.createdAt),
    // Due date with none as `~`, after every date: the due filters and the sort by due date.
    index('tickets_due_idx').on(sql`coalesce(${t.dueDate}, '~')`),
    index('tickets_search_idx').using('gin', t.search),
  ],
);

export const comments = pgTable(
  'comments',
  {
    id: serial('id').primaryKey(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    author: text('author'),
    body: text('body').notNull(),
    createdAt: ctext('created_at').notNull().default(now),
  },
  (t) => [index('comments_ticket_idx').on(t.ticketId, t.id)],
);

/** One row per link, in its canonical direction, as on SQLite (src/db/schema.ts says which). */
export const links = pgTable(
  'links',
  {
    id: serial('id').primaryKey(),
    sourceId: integer('source_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    type: text('type').notNull(),
    targetId: integer('target_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    createdBy: text('created_by'),
    createdAt: ctext('created_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('links_unique_idx').on(t.sourceId, t.type, t.targetId),
    index('links_target_idx').on(t.targetId),
  ],
);

/** Every field change: what changed, from what, to what, by whom, when. */
export const history = pgTable(
  'history',
  {
    id: serial('id').primaryKey(),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    field: text('field').notNull(),
    oldValue: text('old_value'),
    newValue: text('new_value'),
    changedBy: text('changed_by'),
    changedAt: ctext('changed_at').notNull().default(now),
  },
  (t) => [
    index('history_ticket_idx').on(t.ticketId, t.id),
    // The last change of a ticket's text; a create's 'created' row does not enter it.
    index('history_text_edits_idx').on(t.id).where(sql`${t.field} IN ('title', 'description')`),
  ],
);

export const schema = { projects, people, tickets, comments, links, history };
