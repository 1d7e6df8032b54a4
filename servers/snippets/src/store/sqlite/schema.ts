import { sql } from 'drizzle-orm';
import { foreignKey, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

/**
 * Snippets. `n` is the row id the full-text index (snippets_fts, a custom migration) keys on; `id` is the
 * id users see. Metadata come before the code so that reading them leaves the code's overflow pages alone.
 */
export const snippets = sqliteTable(
  'snippets',
  {
    n: integer('n').primaryKey({ autoIncrement: true }),
    id: text('id').notNull().unique(),
    title: text('title').notNull(),
    language: text('language'),
    description: text('description').notNull().default(''),
    /** JSON array of the tags, as snippet_tags holds them. */
    tags: text('tags').notNull().default('[]'),
    source: text('source'),
    /** SHA-256 of the normalised code: one snippet per code. */
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
  },
  (t) => [
    index('snippets_language_idx').on(t.language, t.updatedAt),
    index('snippets_updated_idx').on(t.updatedAt),
    index('snippets_used_idx').on(sql`(${t.worked} + ${t.failed})`, t.updatedAt),
  ],
);

export const snippetTags = sqliteTable(
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

/** Earlier states of a snippet: every edit keeps the one before it. */
export const snippetVersions = sqliteTable(
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

export const snippetUses = sqliteTable(
  'snippet_uses',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    n: integer('n').notNull(),
    outcome: text('outcome', { enum: ['worked', 'failed'] }).notNull(),
    note: text('note').notNull().default(''),
    at: text('at').notNull().default(now),
  },
  (t) => [
    index('snippet_uses_n_idx').on(t.n),
    foreignKey({ columns: [t.n], foreignColumns: [snippets.n] }).onDelete('cascade'),
  ],
);

export const schema = { snippets, snippetTags, snippetVersions, snippetUses };
