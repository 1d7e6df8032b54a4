/** Ticket reads: a ticket, its details, page, links and history, recent tickets, key completion. */
import type { Completion } from '@shipyard/core';
import { normaliseKey } from '../../domain/keys.js';
import type { Status } from '../../domain/model.js';
import { completionShares, LIMITS } from '../../domain/reports.js';
import { COMMENTS_SHOWN, HISTORY_SHOWN, type HistoryEntry } from '../../domain/tickets.js';
import type { TicketDetailsData, TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import { findTicketRow, getTicketRow, lastComments, linksOf, OPEN, type Query, toTicket } from './shared.js';

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

/** History rows as the store gives them. */
const HISTORY_ENTRY = 'field, old_value AS old, new_value AS new, changed_by AS by, changed_at AS at';

/** How many changes a ticket's history holds. */
const historyTotal = async (q: Query, ticketId: number) =>
  (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM history WHERE ticket_id = $1', [ticketId]))
    .rows[0]?.n ?? 0;

/** The first LIMITS.completions keys of a query, and how many match in all (counted only past the cap). */
async function firstKeys(q: Query, from: string, order: string, params: unknown[]): Promise<Completion> {
  const n = params.length;
  const values = (
    await q.query<{ key: string }>(`SELECT t.key ${from} ORDER BY ${order} LIMIT $${n + 1}`, [
      ...params,
      LIMITS.completions,
    ])
  ).rows.map((row) => row.key);
  if (values.length < LIMITS.completions) return { values, total: values.length };
  const total = (await q.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params)).rows[0]?.n ?? 0;
  return { values, total };
}

/**
 * The first keys of each project whose key starts with `prefix`, shared among them as SQLite's
 * projectsFirstKeys shares them: each gets as many as it has, up to an equal part of what the smaller ones
 * leave; past LIMITS.completions projects, the first of each of the first ones by key.
 */
async function projectsFirstKeys(q: Query, prefix: string, openOnly: boolean): Promise<Completion> {
  const counts = (
    await q.query<{ id: number; key: string; n: number }>(
      `SELECT p.id, p.key, count(*)::int AS n FROM tickets t JOIN projects p ON p.id = t.project_id
       WHERE (NOT $2 OR t.status = ANY($3)) AND starts_with(p.key, $1)
       GROUP BY p.id, p.key ORDER BY p.key COLLATE "C"`,
      [prefix, openOnly, OPEN],
    )
  ).rows;
  const share = completionShares(counts);
  const ids = counts.map((project) => project.id);
  const parts = counts.map((project) => share.get(project.id) ?? 0);
  // Each project's first keys by number, in project key order, in one statement.
  const values = (
    await q.query<{ key: string }>(
      `SELECT k.key FROM unnest($1::int[], $2::int[]) WITH ORDINALITY AS p(id, part, n)
       CROSS JOIN LATERAL (SELECT t.key FROM tickets t
         WHERE t.project_id = p.id AND (NOT $3 OR t.status = ANY($4))
         ORDER BY t.number LIMIT p.part) k
       ORDER BY p.n`,
      [ids, parts, openOnly, OPEN],
    )
  ).rows.map((row) => row.key);
  return { values, total: counts.reduce((sum, project) => sum + project.n, 0) };
}

export function readsPart(access: PgAccess): ReadsPart {
  return {
    getTicket: (key) => access.read(async (q) => toTicket(q, await getTicketRow(q, key))),

    getTicketDetails: (key, include, before) =>
      access.read(async (q) => {
        const row = await getTicketRow(q, key);
        const latest = await lastComments(
          q,
          row.id,
          include.includes('comments') ? COMMENTS_SHOWN : 0,
          before,
        );
        const details: TicketDetailsData = {
          ticket: await toTicket(q, row),
          comments_total: latest.total,
          history_total: await historyTotal(q, row.id),
        };
        if (include.includes('comments')) details.comments = latest.comments;
        if (include.includes('links')) details.links = await linksOf(q, row.id);
        if (include.includes('history')) {
          details.history = (
            await q.query<HistoryEntry>(
              `SELECT ${HISTORY_ENTRY} FROM history WHERE ticket_id = $1 ORDER BY id DESC LIMIT $2`,
              [row.id, HISTORY_SHOWN],
            )
          ).rows.reverse();
        }
        return details;
      }),

    recentTickets: (limit) =>
      access.read(
        async (q) =>
          (
            await q.query<{ key: string; title: string }>(
              'SELECT key, title FROM tickets ORDER BY updated_at DESC, id DESC LIMIT $1',
              [limit],
            )
          ).rows,
      ),

    ticketPage: (key, limits) =>
      access.read(async (q) => {
        const row = await getTicketRow(q, key);
        const children = await q.query<{ key: string; title: string; status: Status }>(
          'SELECT key, title, status FROM tickets WHERE parent_id = $1 ORDER BY number LIMIT $2',
          [row.id, limits.children],
        );
        const childCount = await q.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM tickets WHERE parent_id = $1',
          [row.id],
        );
        return {
          ticket: await toTicket(q, row),
          links: await linksOf(q, row.id),
          comments: await lastComments(q, row.id, limits.comments),
          children: { total: childCount.rows[0]?.n ?? 0, tickets: children.rows },
        };
      }),

    ticketLinks: (key) =>
      access.read(async (q) => {
        const row = await getTicketRow(q, key);
        return { key: row.key, links: await linksOf(q, row.id) };
      }),

    ticketHistory: (key, upto, limit) =>
      access.read(async (q) => {
        const ticket = await getTicketRow(q, key);
        const total = await historyTotal(q, ticket.id);
        const last = upto === undefined || upto < 1 || upto > total ? total : upto;
        const first = Math.max(last - limit + 1, 1);
        const entries =
          last < first
            ? []
            : (
                await q.query<HistoryEntry>(
                  `SELECT ${HISTORY_ENTRY} FROM history WHERE ticket_id = $1 ORDER BY id LIMIT $2 OFFSET $3`,
                  [ticket.id, last - first + 1, first - 1],
                )
              ).rows;
        return { key: ticket.key, total, first, last, entries };
      }),

    historyCount: (key) =>
      access.read(async (q) => {
        const row = await findTicketRow(q, normaliseKey(key));
        return row ? historyTotal(q, row.id) : undefined;
      }),

    completeTicketKeys: (typed, scope) =>
      access.read(async (q) => {
        const text = typed.trim().toUpperCase();
        // A workflow on open work (triage, break-down) is offered open tickets only.
        const openOnly = scope?.openOnly ?? false;
        if (text === '') {
          return firstKeys(
            q,
            'FROM tickets t WHERE (NOT $1 OR t.status = ANY($2))',
            't.updated_at DESC, t.id DESC',
            [openOnly, OPEN],
          );
        }
        const match = /^([A-Z][A-Z0-9]*)(?:-([0-9]*))?$/.exec(text);
        if (!match) return [];
        const [, project = '', digits] = match;
        if (digits === undefined) return projectsFirstKeys(q, project, openOnly);
        return firstKeys(
          q,
          `FROM tickets t JOIN projects p ON p.id = t.project_id
           WHERE (NOT $1 OR t.status = ANY($2)) AND p.key = $3 AND starts_with(t.number::text, $4)`,
          't.number',
          [openOnly, OPEN, project, digits],
        );
      }),
  };
}
