import { and, count, desc, eq, lt } from 'drizzle-orm';
import { comments, tickets } from '../db/schema.js';
import { chars, clip, getTicketRow, nowIso, type TicketsDb, type Tx, ticketUris } from './model.js';

export const MAX_COMMENT_CHARS = 10_000;

export interface Comment {
  id: number;
  author: string | null;
  body: string;
  created_at: string;
}

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
 * Comments (oldest first) fitted to `budget` characters of bodies: the newest are whole while their bodies
 * add up to the budget, older ones are cut to `clipTo` (a cut body ends with `… (N characters)`).
 */
export function fitComments(list: readonly Comment[], budget: number, clipTo: number): Comment[] {
  let left = budget;
  return list
    .toReversed()
    .map((comment) => {
      left -= chars(comment.body);
      return left >= 0 ? comment : Object.assign({}, comment, { body: clip(comment.body, clipTo) });
    })
    .reverse();
}
