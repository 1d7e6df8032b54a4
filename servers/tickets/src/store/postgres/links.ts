/** Links between tickets: link (no cycle of blocks or duplicates) and unlink. */
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { notYet } from './not-yet.js';

export type LinksPart = Pick<TicketsStore, 'linkTickets' | 'unlinkTickets'>;

export function linksPart(_access: PgAccess): LinksPart {
  return {
    linkTickets: notYet('linkTickets'),
    unlinkTickets: notYet('unlinkTickets'),
  };
}
