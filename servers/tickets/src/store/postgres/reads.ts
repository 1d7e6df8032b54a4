/** Ticket reads: a ticket, its details, page, links and history, recent tickets, key completion. */
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { notYet } from './not-yet.js';

export type ReadsPart = Pick<
  TicketsStore,
  | 'getTicket'
  | 'getTicketDetails'
  | 'recentTickets'
  | 'ticketPage'
  | 'ticketLinks'
  | 'ticketHistory'
  | 'historyCount'
  | 'completeTicketKeys'
>;

export function readsPart(_access: PgAccess): ReadsPart {
  return {
    getTicket: notYet('getTicket'),
    getTicketDetails: notYet('getTicketDetails'),
    recentTickets: notYet('recentTickets'),
    ticketPage: notYet('ticketPage'),
    ticketLinks: notYet('ticketLinks'),
    ticketHistory: notYet('ticketHistory'),
    historyCount: notYet('historyCount'),
    completeTicketKeys: notYet('completeTicketKeys'),
  };
}
