/** Comments: add, edit and delete one's own. */
import { checkOwnComment } from '../../domain/comments.js';
import { nowIso, ticketUris } from '../../domain/model.js';
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { type CommentDbRow, getTicketRow, insertComment, isSerial, type Query, toComment } from './shared.js';

export type CommentsPart = Pick<TicketsStore, 'addComment' | 'updateComment' | 'deleteComment'>;

/** Updated_at moves (the ticket changed as readers see it); version does not (no field changed). */
const touch = (tx: Query, ticketId: number, at: string) =>
  tx.query('UPDATE tickets SET updated_at = $2 WHERE id = $1', [ticketId, at]);

/**
 * The comment `id` of ticket `key`, locked with its ticket, when `by` wrote it (names compared without
 * regard to case): only its author may edit or delete a comment, so a server with no configured user may
 * change none.
 */
async function ownComment(
  tx: Query,
  key: string,
  id: number,
  by: string | undefined,
  change: 'edit' | 'delete',
) {
  const ticket = await getTicketRow(tx, key, true);
  // An id past the column's range names no comment (as on SQLite), rather than failing the query.
  const row = isSerial(id)
    ? (
        await tx.query<CommentDbRow>('SELECT * FROM comments WHERE id = $1 AND ticket_id = $2 FOR UPDATE', [
          id,
          ticket.id,
        ])
      ).rows[0]
    : undefined;
  checkOwnComment(ticket.key, id, row, by, change);
  return { ticket, row };
}

export function commentsPart(access: PgAccess): CommentsPart {
  return {
    // The ticket's updated_at moves, its version does not and no history is written (comments are their
    // own record), so `changed` holds the ticket's pages but not its history.
    addComment: (input, by) =>
      access.write(async (tx) => {
        const ticket = await getTicketRow(tx, input.key, true);
        const at = nowIso();
        const comment = await insertComment(tx, ticket.id, input.body, by, at);
        await touch(tx, ticket.id, at);
        return { key: ticket.key, comment, changed: ticketUris(ticket.key, { history: false }) };
      }),

    // The same body again changes nothing.
    updateComment: (input, by) =>
      access.write(async (tx) => {
        const { ticket, row } = await ownComment(tx, input.key, input.id, by, 'edit');
        if (row.body === input.body) return { key: ticket.key, comment: toComment(row), changed: [] };
        const updated = (
          await tx.query<CommentDbRow>('UPDATE comments SET body = $2 WHERE id = $1 RETURNING *', [
            row.id,
            input.body,
          ])
        ).rows[0] as CommentDbRow;
        await touch(tx, ticket.id, nowIso());
        return {
          key: ticket.key,
          comment: toComment(updated),
          changed: ticketUris(ticket.key, { history: false }),
        };
      }),

    deleteComment: (input, by) =>
      access.write(async (tx) => {
        const { ticket, row } = await ownComment(tx, input.key, input.id, by, 'delete');
        await tx.query('DELETE FROM comments WHERE id = $1', [row.id]);
        await touch(tx, ticket.id, nowIso());
        return { key: ticket.key, id: row.id, changed: ticketUris(ticket.key, { history: false }) };
      }),
  };
}
