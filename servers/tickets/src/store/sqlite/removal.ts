import { recordChanges } from '@shipyard/db';
import { asc, eq, inArray } from 'drizzle-orm';
import { nowIso, ticketUris } from '../../domain/model.js';
import {
  checkRemovable,
  type DeletedTicket,
  deletedTicket,
  deleteUris,
  linkedOf,
  linkGone,
} from '../../domain/removal.js';
import { linksOf } from './links.js';
import { getTicketRow, recordHistory, shownOn, type TicketsDb } from './model.js';
import { tickets } from './schema.js';

/**
 * Delete a ticket with its comments and history. A ticket with children or links is refused, naming them,
 * unless `force`: then its children stay without a parent and its links go, each change in the other
 * ticket's history. Its key is not given out again (the project's counter stays).
 */
export function deleteTicket(
  db: TicketsDb,
  input: { key: string; force?: boolean | undefined },
  user?: string,
): { deleted: DeletedTicket; changed: string[] } {
  return db.transaction(
    (tx) => {
      const row = getTicketRow(tx, input.key);
      const children = tx
        .select({ id: tickets.id, key: tickets.key, version: tickets.version })
        .from(tickets)
        .where(eq(tickets.parentId, row.id))
        .orderBy(asc(tickets.projectId), asc(tickets.number))
        .all();
      const grouped = linksOf(tx, row.id);
      const linked = linkedOf(grouped);
      if (!input.force) {
        checkRemovable(
          row.key,
          children.map((child) => child.key),
          linked,
        );
      }
      // Read before the row goes: the pages that show it (parent, linked tickets, projects it blocks).
      const changed = deleteUris(row.key, row.labels, shownOn(tx, row.key, { blocking: true }));
      const at = nowIso();
      // Each linked ticket's history says the link went, from its side ("blocked_by SHIP-1").
      const ids = new Set<number>();
      for (const link of linked) {
        const other = getTicketRow(tx, link.key);
        ids.add(other.id);
        recordHistory(tx, other.id, [linkGone(link.type, row.key)], user, at);
      }
      if (ids.size > 0)
        tx.update(tickets)
          .set({ updatedAt: at })
          .where(inArray(tickets.id, [...ids]))
          .run();
      for (const child of children) {
        tx.update(tickets)
          .set({ parentId: null, version: child.version + 1, updatedAt: at })
          .where(eq(tickets.id, child.id))
          .run();
        recordHistory(tx, child.id, [{ field: 'parent', old: row.key, new: null }], user, at);
        changed.push(...ticketUris(child.key));
      }
      // Its comments, history and links go with it (ON DELETE CASCADE), its words leave the search index
      // (a trigger).
      tx.delete(tickets).where(eq(tickets.id, row.id)).run();
      recordChanges(db, changed);
      return {
        deleted: deletedTicket(row, children, linked.length),
        changed,
      };
    },
    { behavior: 'immediate' },
  );
}
