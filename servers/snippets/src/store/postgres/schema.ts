import { sql } from 'drizzle-orm';
import {
  customType,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  text,
} from 'drizzle-orm/pg-core';

/** Text search document: title weight A, tags and description B, code and its identifier parts D. */
const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

const now = sql`(to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/**
 * Snippets, as on SQLite: `n` the row key, `id` the one users see, times as ISO text, tags as a JSON array;
 * `search` is the stored text search document, indexed with GIN.
 */
export const snippets = pgTable(
  'snippets',
  {
    n: serial('n').primaryKey(),
    id: text('id').notNull().unique(),
    title: text('title').notNull(),
    language: text('language'),
    description: text('description').notNull().default(''),
    tags: text('tags').notNull().default('[]'),
    source: text('source'),
    hash: text('hash').notNull().unique(),
    version: integer('version').notNull().default(1),
    worked: integer('worked').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    lastUsedAt: text('last_used_at'),
    createdAt: text('created_at').notNull().default(now),
    updatedAt: text('updated_at').notNull().default(now),
    head: text('head').notNull().default(''),
    lines: integer('lines').notNull().default(0),
    code: text('code').notNull(),
    search: tsvector('search').notNull(),
  },
  (t) => [
    index('snippets_language_idx').on(t.language, t.updatedAt),
    index('snippets_updated_idx').on(t.updatedAt),
    index('snippets_used_idx').on(sql`(${t.worked} + ${t.failed})`, t.updatedAt),
    index('snippets_search_idx').using('gin', t.search),
  ],
);

export const snippetTags = pgTable(
  'snippet_tags',
  {
    tag: text('tag').notNull(),
    n: integer('n').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.tag, t.n] }),
    index('snippet_tags_n_idx').on(t.n),
    foreignKey({ columns: [t.n], foreignColumns: [snippets.n] }).onDelete('cascade'),
  ],
);

export const snippetVersions = pgTable(
  'snippet_versions',
  {
    n: integer('n').notNull(),
    version: integer('version').notNull(),
    title: text('title').notNull(),
    language: text('language'),
    description: text('description').notNull(),
    tags: text('tags').notNull(),
    source: text('source'),
    savedAt: text('saved_at').notNull(),
    code: text('code').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.n, t.version] }),
    foreignKey({ columns: [t.n], foreignColumns: [snippets.n] }).onDelete('cascade'),
  ],
);

export const snippetUses = pgTable(
  'snippet_uses',
  {
    id: serial('id').primaryKey(),
    n: integer('n').notNull(),
    outcome: text('outcome').notNull(),
    note: text('note').notNull().default(''),
    at: text('at').notNull().default(now),
  },
  (t) => [
    index('snippet_uses_n_idx').on(t.n),
    foreignKey({ columns: [t.n], foreignColumns: [snippets.n] }).onDelete('cascade'),
  ],
);

export const schema = { snippets, snippetTags, snippetVersions, snippetUses };
