import { sql } from 'drizzle-orm';
import {
  type AnySQLiteColumn,
  check,
  index,
  integer,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/sqlite-core';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const projects = sqliteTable('projects', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  /** e.g. SHIP: ^[A-Z][A-Z0-9]{1,9}$ */
  key: text('key').notNull().unique(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  /** The number of the last ticket created; the next key is key-(lastNumber+1). */
  lastNumber: integer('last_number').notNull().default(0),
  createdAt: text('created_at').notNull().default(now),
  /** When the project was archived; null while it is active. Archived projects leave lists and searches. */
  archivedAt: text('archived_at'),
});

/**
 * Every name a ticket (assignee, reporter) or a comment (author) has used, kept by triggers
 * (drizzle/0010_people_archive.sql), so a new name can be told from a known one without reading every
 * ticket. Names compare without regard to ASCII case here; src/domain/people.ts folds other letters.
 */
export const people = sqliteTable('people', {
  name: text('name').primaryKey(),
});

/**
 * Tickets. The migrations add what drizzle does not model: the full-text index `tickets_fts` of titles and
 * descriptions, whose row id is the ticket id, and its triggers (drizzle/0001_fts.sql, 0003, 0005, 0009).
 */
export const tickets = sqliteTable(
  'tickets',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id),
    number: integer('number').notNull(),
    /** e.g. SHIP-42 */
    key: text('key').notNull().unique(),
    title: text('title').notNull(),
    description: text('description').notNull().default(''),
    type: text('type', { enum: ['bug', 'feature', 'task', 'chore'] }).notNull(),
    status: text('status', { enum: ['backlog', 'todo', 'in_progress', 'in_review', 'done', 'cancelled'] })
      .notNull()
      .default('backlog'),
    priority: text('priority', { enum: ['urgent', 'high', 'medium', 'low', 'none'] })
      .notNull()
      .default('none'),
    /** 0 urgent … 4 none, for sorting by priority. */
    priorityRank: integer('priority_rank').notNull().default(4),
    assignee: text('assignee'),
    reporter: text('reporter'),
    /** JSON array of lower-case labels, sorted. */
    labels: text('labels').notNull().default('[]'),
    estimate: real('estimate'),
    dueDate: text('due_date'),
    parentId: integer('parent_id').references((): AnySQLiteColumn => tickets.id),
    resolution: text('resolution'),
    version: integer('version').notNull().default(1),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('tickets_project_number_idx').on(t.projectId, t.number),
    index('tickets_project_status_idx').on(t.projectId, t.status),
    index('tickets_status_idx').on(t.status),
    index('tickets_priority_idx').on(t.priorityRank),
    // Names compare without regard to (ASCII) case: `Ana` finds tickets assigned to ana (search.ts).
    index('tickets_assignee_idx').on(sql`${t.assignee} COLLATE NOCASE`),
    // Only the tickets with a parent: a create without one writes a page less (drizzle/0008).
    index('tickets_parent_idx').on(t.parentId).where(sql`${t.parentId} is not null`),
    index('tickets_updated_idx').on(t.updatedAt),
    index('tickets_created_idx').on(t.createdAt),
    // Due date with none as `~`, after every date: the due filters and the sort by due date (search.ts).
    index('tickets_due_idx').on(sql`ifnull(${t.dueDate}, '~')`),
  ],
);

export const comments = sqliteTable(
  'comments',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    author: text('author'),
    body: text('body').notNull(),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [index('comments_ticket_idx').on(t.ticketId, t.id)],
);

/**
 * One row per link, stored in its canonical direction: blocks (source blocks target), duplicates
 * (source duplicates target) and relates (source id < target id). blocked_by and duplicated_by are the
 * same rows read from the other end, so the two directions cannot disagree.
 */
export const links = sqliteTable(
  'links',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    sourceId: integer('source_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    type: text('type', { enum: ['blocks', 'duplicates', 'relates'] }).notNull(),
    targetId: integer('target_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    createdBy: text('created_by'),
    createdAt: text('created_at').notNull().default(now),
  },
  (t) => [
    uniqueIndex('links_unique_idx').on(t.sourceId, t.type, t.targetId),
    index('links_target_idx').on(t.targetId),
  ],
);

/** Every field change: what changed, from what, to what, by whom, when. */
export const history = sqliteTable(
  'history',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    ticketId: integer('ticket_id')
      .notNull()
      .references(() => tickets.id, { onDelete: 'cascade' }),
    field: text('field').notNull(),
    oldValue: text('old_value'),
    newValue: text('new_value'),
    changedBy: text('changed_by'),
    changedAt: text('changed_at').notNull().default(now),
  },
  (t) => [
    index('history_ticket_idx').on(t.ticketId, t.id),
    // The last change of a ticket's text, as a relevance page's cursor reads it (search.ts INDEX_STATE):
    // only those changes enter it, so a create, which writes a 'created' row, does not write to it.
    index('history_text_edits_idx').on(t.id).where(sql`${t.field} IN ('title', 'description')`),
  ],
);

/**
 * How far the full-text index `tickets_fts` goes: it holds the tickets whose id is at most `upto` (one row).
 * A new ticket is not indexed in its own transaction; the tickets past `upto` are indexed in one batch before
 * a search reads the index, or by the create 256 ids past it (src/store/sqlite/indexing.ts; 0005_fts_batches.sql
 * says why). A migration that rebuilds the index must set `upto` to the largest ticket id.
 */
export const ticketsIndexed = sqliteTable(
  'tickets_indexed',
  {
    id: integer('id').primaryKey(),
    upto: integer('upto').notNull(),
  },
  (t) => [check('tickets_indexed_one_row', sql`${t.id} = 1`)],
);

export const schema = { projects, people, tickets, comments, links, history, ticketsIndexed };
