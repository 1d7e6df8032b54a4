/** Comments: add, edit and delete one's own. */
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { notYet } from './not-yet.js';

export type CommentsPart = Pick<TicketsStore, 'addComment' | 'updateComment' | 'deleteComment'>;

export function commentsPart(_access: PgAccess): CommentsPart {
  return {
    addComment: notYet('addComment'),
    updateComment: notYet('updateComment'),
    deleteComment: notYet('deleteComment'),
  };
}
