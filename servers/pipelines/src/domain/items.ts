import { Conflict, NotFound } from '@shipyard/core';
import { eq, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { items, type schema } from '../db/schema.js';

export type PipelinesDb = BetterSQLite3Database<typeof schema>;

export interface Item {
  id: number;
  title: string;
  notes: string;
  created_at: string;
}

/** The URI of an item's resource. */
export const itemUri = (id: number) => `pipelines://items/${id}`;

const toItem = (row: typeof items.$inferSelect): Item => ({
  id: row.id,
  title: row.title,
  notes: row.notes,
  created_at: row.createdAt,
});

/**
 * Add an item with a unique title. A write returns the URIs of the resources it changed, for the tool to
 * notify subscribers of: the domain knows which pages show what it wrote.
 */
export function addItem(
  db: PipelinesDb,
  input: { title: string; notes?: string | undefined },
): { item: Item; changed: string[] } {
  return db.transaction(
    (tx) => {
      const existing = tx.select({ id: items.id }).from(items).where(eq(items.title, input.title)).get();
      if (existing) {
        throw new Conflict(`Item ${existing.id} already has the title "${input.title}"`, {
          hint: `Read ${itemUri(existing.id)}, or choose another title`,
        });
      }
      const row = tx
        .insert(items)
        .values({ title: input.title, notes: input.notes ?? '', createdAt: new Date().toISOString() })
        .returning()
        .get();
      return { item: toItem(row), changed: [itemUri(row.id)] };
    },
    { behavior: 'immediate' },
  );
}

export function getItem(db: PipelinesDb, id: number): Item {
  const row = Number.isSafeInteger(id) ? db.select().from(items).where(eq(items.id, id)).get() : undefined;
  if (!row) throw new NotFound(`No item with id ${id}`);
  return toItem(row);
}

/** Ids (as text) that start with what the user typed, for completion. */
export function completeItemIds(db: PipelinesDb, prefix: string): string[] {
  return db
    .all<{ id: number }>(
      sql`SELECT id FROM items WHERE CAST(id AS TEXT) LIKE ${`${prefix.replace(/\D/g, '')}%`} ORDER BY id LIMIT 100`,
    )
    .map((row) => String(row.id));
}

export function itemMarkdown(item: Item): string {
  return `# ${item.title}\n\n- id: ${item.id}\n- created: ${item.created_at}\n\n${item.notes}\n`;
}
