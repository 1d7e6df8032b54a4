import { recordChanges } from '@shipyard/db';
import { and, count, desc, eq, lt } from 'drizzle-orm';
import type { Comment } from '../../domain/comments.js';
import { checkOwnComment } from '../../domain/comments.js';
import { nowIso, ticketUris } from '../../domain/model.js';
import { getTicketRow, type TicketsDb, type Tx } from './model.js';
import { comments, tickets } from './schema.js';

const toComment = (row: typeof comments.$inferSelect): Comment => ({
  id: row.id,
  author: row.author,
  body: row.body,
  created_at: row.createdAt,
});

/**
 * Add a comment by `user` (null when the server has no configured user). The ticket's updated_at moves,
 * its version does not (no field changed) and no history is written (comments are their own record), so
 * `changed` holds the ticket's pages but not its history.
 */
export function addComment(
  db: TicketsDb,
  input: { key: string; body: string },
  user?: string,
): { key: string; comment: Comment; changed: string[] } {
  return db.transaction(
    (tx) => {
      const ticket = getTicketRow(tx, input.key);
      const at = nowIso();
      const row = insertComment(tx, ticket.id, input.body, user, at);
      tx.update(tickets).set({ updatedAt: at }).where(eq(tickets.id, ticket.id)).run();
      return {
        key: ticket.key,
        comment: toComment(row),
        changed: ticketUris(ticket.key, { history: false }),
      };
    },
    { behavior: 'immediate' },
  );
}

/** Store a comment by `user` (inside the caller's transaction); transition_ticket adds one this way too. */
export function insertComment(tx: Tx, ticketId: number, body: string, user: string | undefined, at: string) {
  return tx
    .insert(comments)
    .values({ ticketId, author: user ?? null, body, createdAt: at })
    .returning()
    .get();
}

/**
 * The last `limit` comments of a ticket (before the comment id `before`, when given), oldest first, and how
 * many it has in all.
 */
export function lastComments(
  db: Tx,
  ticketId: number,
  limit: number,
  before?: number,
): { total: number; comments: Comment[] } {
  const total = db.select({ n: count() }).from(comments).where(eq(comments.ticketId, ticketId)).get()?.n ?? 0;
  const rows = db
    .select()
    .from(comments)
    .where(and(eq(comments.ticketId, ticketId), before === undefined ? undefined : lt(comments.id, before)))
    .orderBy(desc(comments.id))
    .limit(limit)
    .all();
  return { total, comments: rows.reverse().map(toComment) };
}

/**
 * The comment `id` of ticket `key`, when `user` wrote it (names compared without regard to case): only its
 * author may edit or delete a comment, so a server with no configured user may change none.
 */
function ownComment(tx: Tx, key: string, id: number, user: string | undefined, change: 'edit' | 'delete') {
  const ticket = getTicketRow(tx, key);
  const row = tx
    .select()
    .from(comments)
    .where(and(eq(comments.id, id), eq(comments.ticketId, ticket.id)))
    .get();
  checkOwnComment(ticket.key, id, row, user, change);
  return { ticket, row };
}

/**
 * Replace the body of one's own comment. The ticket's updated_at moves, as for a new comment; the same body
 * again changes nothing. Other processes hear of it through the change log.
 */
export function updateComment(
  db: TicketsDb,
  input: { key: string; id: number; body: string },
  user?: string,
): { key: string; comment: Comment; changed: string[] } {
  return db.transaction(
    (tx) => {
      const { ticket, row } = ownComment(tx, input.key, input.id, user, 'edit');
      if (row.body === input.body) return { key: ticket.key, comment: toComment(row), changed: [] };
      const updated = tx
        .update(comments)
        .set({ body: input.body })
        .where(eq(comments.id, row.id))
        .returning()
        .get();
      tx.update(tickets).set({ updatedAt: nowIso() }).where(eq(tickets.id, ticket.id)).run();
      const changed = ticketUris(ticket.key, { history: false });
      recordChanges(db, changed);
      return { key: ticket.key, comment: toComment(updated), changed };
    },
    { behavior: 'immediate' },
  );
}

/** Delete one's own comment; the ticket's updated_at moves. Other processes hear of it through the change log. */
export function deleteComment(
  db: TicketsDb,
  input: { key: string; id: number },
  user?: string,
): { key: string; id: number; changed: string[] } {
  return db.transaction(
    (tx) => {
      const { ticket, row } = ownComment(tx, input.key, input.id, user, 'delete');
      tx.delete(comments).where(eq(comments.id, row.id)).run();
      tx.update(tickets).set({ updatedAt: nowIso() }).where(eq(tickets.id, ticket.id)).run();
      const changed = ticketUris(ticket.key, { history: false });
      recordChanges(db, changed);
      return { key: ticket.key, id: row.id, changed };
    },
    { behavior: 'immediate' },
  );
}
