/** Ticket writes: create (the project's counter bumped in the same transaction), update, transition, bulk, delete. */
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { notYet } from './not-yet.js';

export type TicketsPart = Pick<
  TicketsStore,
  'createTicket' | 'updateTicket' | 'transitionTicket' | 'bulkUpdate' | 'deleteTicket'
>;

export function ticketsPart(_access: PgAccess): TicketsPart {
  return {
    createTicket: notYet('createTicket'),
    updateTicket: notYet('updateTicket'),
    transitionTicket: notYet('transitionTicket'),
    bulkUpdate: notYet('bulkUpdate'),
    deleteTicket: notYet('deleteTicket'),
  };
}
