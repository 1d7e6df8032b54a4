/** search_tickets and find_similar_tickets over the stored tsvector. */
import type { TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { notYet } from './not-yet.js';

export type SearchPart = Pick<TicketsStore, 'searchTickets' | 'findSimilarTickets'>;

export function searchPart(_access: PgAccess): SearchPart {
  return {
    searchTickets: notYet('searchTickets'),
    findSimilarTickets: notYet('findSimilarTickets'),
  };
}
