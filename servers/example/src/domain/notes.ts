import { Conflict, InvalidInput, NotFound, type PageRequest, pageWindow, toPage } from '@shipyard/core';
import { preparedOnce } from '@shipyard/db';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { notes, type schema } from '../db/schema.js';

export type NotesDb = BetterSQLite3Database<typeof schema>;

export interface NoteSummary {
  slug: string;
  title: string;
  tags: string[];
  version: number;
  updated_at: string;
}

export interface Note extends NoteSummary {
  body: string;
  created_at: string;
}

type Row = typeof notes.$inferSelect;

/** The URI of a note's resource. */
export const noteUri = (slug: string) => `notes://${slug}`;

/** A note as a write left it, and the URIs of the resources the write changed. */
export interface NoteWrite {
  note: Note;
  changed: string[];
}

function toNote(row: Row): Note {
  return {
    slug: row.slug,
    title: row.title,
    body: row.body,
    tags: JSON.parse(row.tags) as string[],
    version: row.version,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

function toSummary(row: Row): NoteSummary {
  const { body: _body, created_at: _created, ...summary } = toNote(row);
  return summary;
}

/** "Release plan: Q3!" -> "release-plan-q3". */
export function slugify(title: string): string {
  return title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
}

export function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((tag) => tag.trim().toLowerCase()).filter(Boolean))].sort();
}

const now = () => new Date().toISOString();

export function getNote(db: NotesDb, slug: string): Note {
  const row = db.select().from(notes).where(eq(notes.slug, slug)).get();
  if (!row) {
    throw new NotFound(`No note with slug "${slug}"`, { hint: 'Call list_notes to find the slug' });
  }
  return toNote(row);
}

export interface CreateNote {
  title: string;
  body?: string | undefined;
  tags?: readonly string[] | undefined;
}

export function createNote(db: NotesDb, input: CreateNote): NoteWrite {
  const slug = slugify(input.title);
  if (!slug) {
    throw new InvalidInput('The title needs at least one letter or digit to make a slug from', {
      hint: 'Use a title with words in it',
    });
  }
  return db.transaction(
    (tx) => {
      if (tx.select({ id: notes.id }).from(notes).where(eq(notes.slug, slug)).get()) {
        throw new Conflict(`A note with slug "${slug}" already exists`, {
          hint: `Update it with save_note and slug "${slug}", or choose another title`,
        });
      }
      const at = now();
      const row = tx
        .insert(notes)
        .values({
          slug,
          title: input.title,
          body: input.body ?? '',
          tags: JSON.stringify(normaliseTags(input.tags ?? [])),
          createdAt: at,
          updatedAt: at,
        })
        .returning()
        .get();
      return { note: toNote(row), changed: [noteUri(slug)] };
    },
    { behavior: 'immediate' },
  );
}

export interface UpdateNote {
  slug: string;
  expectedVersion?: number | undefined;
  title?: string | undefined;
  body?: string | undefined;
  tags?: readonly string[] | undefined;
}

export function updateNote(db: NotesDb, input: UpdateNote): NoteWrite {
  return db.transaction(
    (tx) => {
      const current = tx.select().from(notes).where(eq(notes.slug, input.slug)).get();
      if (!current) {
        throw new NotFound(`No note with slug "${input.slug}"`, { hint: 'Call list_notes to find the slug' });
      }
      if (input.expectedVersion !== undefined && input.expectedVersion !== current.version) {
        throw new Conflict(
          `Note "${input.slug}" is at version ${current.version}, not ${input.expectedVersion}: it changed since you read it`,
          { hint: 'Read it again (list_notes or the notes:// resource), then retry with the new version' },
        );
      }
      const row = tx
        .update(notes)
        .set({
          ...(input.title === undefined ? {} : { title: input.title }),
          ...(input.body === undefined ? {} : { body: input.body }),
          ...(input.tags === undefined ? {} : { tags: JSON.stringify(normaliseTags(input.tags)) }),
          version: current.version + 1,
          updatedAt: now(),
        })
        .where(eq(notes.id, current.id))
        .returning()
        .get();
      return { note: toNote(row), changed: [noteUri(row.slug)] };
    },
    { behavior: 'immediate' },
  );
}

/** A LIKE pattern (used with ESCAPE '\\') in which user text matches literally. */
function likePattern(text: string, where: 'anywhere' | 'prefix'): string {
  const escaped = text.replace(/[\\%_]/g, (c) => `\\${c}`);
  return where === 'prefix' ? `${escaped}%` : `%${escaped}%`;
}

export interface ListNotes extends PageRequest {
  query?: string | undefined;
  tag?: string | undefined;
}

/**
 * The two list queries, built and prepared once per database: drizzle would otherwise rebuild the SQL and
 * SQLite recompile it on every call. Absent filters are bound as null and match everything.
 */
function prepareListQueries(db: NotesDb) {
  const pattern = sql.placeholder('pattern');
  const tag = sql.placeholder('tag');
  const where = and(
    sql`(${pattern} IS NULL OR ${notes.title} LIKE ${pattern} ESCAPE '\\' OR ${notes.body} LIKE ${pattern} ESCAPE '\\')`,
    sql`(${tag} IS NULL OR EXISTS (SELECT 1 FROM json_each(${notes.tags}) WHERE json_each.value = ${tag}))`,
  );
  return {
    count: db.select({ n: sql<number>`count(*)` }).from(notes).where(where).prepare(),
    page: db
      .select()
      .from(notes)
      .where(where)
      .orderBy(desc(notes.updatedAt), desc(notes.id))
      .limit(sql.placeholder('limit'))
      .offset(sql.placeholder('offset'))
      .prepare(),
  };
}

export function listNotes(db: NotesDb, input: ListNotes) {
  const queries = preparedOnce(db, prepareListQueries);
  const query = JSON.stringify([input.query ?? '', input.tag ?? '']);
  const window = pageWindow(input, query);
  const filters = {
    pattern: input.query ? likePattern(input.query, 'anywhere') : null,
    tag: input.tag ? input.tag.trim().toLowerCase() : null,
  };
  const total = queries.count.get(filters)?.n ?? 0;
  const rows = queries.page.all({ ...filters, limit: window.limit, offset: window.offset });
  return toPage(rows.map(toSummary), total, window, query);
}

/** Slugs starting with a prefix, for completion. */
export function completeSlugs(db: NotesDb, prefix: string, limit = 100): string[] {
  return db
    .select({ slug: notes.slug })
    .from(notes)
    .where(sql`${notes.slug} LIKE ${likePattern(prefix, 'prefix')} ESCAPE '\\'`)
    .orderBy(notes.slug)
    .limit(limit)
    .all()
    .map((row) => row.slug);
}

/** Every tag in use, sorted. */
export function allTags(db: NotesDb): string[] {
  return db
    .all<{ tag: string }>(
      sql`SELECT DISTINCT json_each.value AS tag FROM notes, json_each(notes.tags) ORDER BY tag`,
    )
    .map((row) => row.tag);
}

export function recentNotes(db: NotesDb, limit: number): NoteSummary[] {
  return db.select().from(notes).orderBy(desc(notes.updatedAt)).limit(limit).all().map(toSummary);
}

export function noteMarkdown(note: Note): string {
  const tags = note.tags.length > 0 ? note.tags.map((t) => `#${t}`).join(' ') : '(none)';
  return `# ${note.title}\n\n- slug: ${note.slug}\n- tags: ${tags}\n- version: ${note.version}\n- updated: ${note.updated_at}\n\n${note.body}\n`;
}
