import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import {
  bothEnds,
  type CanonicalLink,
  canonical,
  groupLinks,
  LINK_TYPES,
  type LinkType,
  linkCycle,
  linkEntries,
  noSuchLink,
  type StoredLinkType as StoredType,
  selfLink,
  type TicketLinks,
} from '../../domain/links.js';
import { elide, nowIso, OPEN_STATUSES } from '../../domain/model.js';
import type { LinkResult } from '../rows.js';
import { recordHistory, type TicketRow, type TicketsDb, type Tx, ticketArgument } from './model.js';
import { links, projects, tickets } from './schema.js';

/** The stored types: blocked_by and duplicated_by are rows of blocks and duplicates read from the target. */

const sameRow = (tx: Tx, link: CanonicalLink) =>
  tx
    .select({ id: links.id })
    .from(links)
    .where(
      and(eq(links.sourceId, link.sourceId), eq(links.type, link.type), eq(links.targetId, link.targetId)),
    )
    .get();

/**
 * Whether links of a type lead from one ticket to another, in one statement: the walk below takes a query a
 * level, which a chain of tens of thousands made seconds even when it found nothing. Each ticket is visited
 * once (UNION).
 */
function reaches(tx: Tx, type: StoredType, from: number, to: number): boolean {
  const found = tx.get<{ found: number }>(sql`
    WITH RECURSIVE reach(id) AS (
      SELECT CAST(${from} AS INTEGER)
      UNION
      SELECT l.target_id FROM reach JOIN links l ON l.source_id = reach.id AND l.type = ${type}
    )
    SELECT 1 AS found FROM reach WHERE id = CAST(${to} AS INTEGER) LIMIT 1`);
  return found !== undefined;
}

/** Levels a path search walks a query at a time before it reads all the links it can reach at once. */
const LEVELS_ONE_BY_ONE = 16;

/**
 * Ids on a shortest path `from` -> … -> `to` along links of this type (source to target), or undefined.
 * Breadth first, each ticket visited once: a query a level for the first LEVELS_ONE_BY_ONE levels (so a
 * short cycle is found without reading the graph behind it), then the links out of every ticket still to
 * visit in one statement (a long chain would take too many queries a level at a time).
 */
function findPath(tx: Tx, type: StoredType, from: number, to: number): number[] | undefined {
  const parent = new Map<number, number | null>([[from, null]]);
  const pathTo = () => {
    const path = [to];
    for (let at = parent.get(to); at != null; at = parent.get(at)) path.push(at);
    return path.reverse();
  };
  /** Visits the targets of `edges` not seen yet; true once `to` is among them. */
  const visit = (edges: { source: number; target: number }[], next: number[]) => {
    for (const { source, target } of edges) {
      if (parent.has(target)) continue;
      parent.set(target, source);
      if (target === to) return true;
      next.push(target);
    }
    return false;
  };
  let frontier = [from];
  for (let level = 0; level < LEVELS_ONE_BY_ONE && frontier.length > 0; level++) {
    const next: number[] = [];
    for (let i = 0; i < frontier.length; i += 500) {
      const edges = tx
        .select({ source: links.sourceId, target: links.targetId })
        .from(links)
        .where(and(eq(links.type, type), inArray(links.sourceId, frontier.slice(i, i + 500))))
        .all();
      if (visit(edges, next)) return pathTo();
    }
    frontier = next;
  }
  if (frontier.length === 0) return undefined;
  // Deeper: every link out of what the frontier reaches, in one statement, walked in memory.
  const edges = tx.all<{ source: number; target: number }>(sql`
    WITH RECURSIVE reach(id) AS (
      SELECT value FROM json_each(${JSON.stringify(frontier)})
      UNION
      SELECT l.target_id FROM reach JOIN links l ON l.source_id = reach.id AND l.type = ${type}
    )
    SELECT l.source_id AS source, l.target_id AS target
      FROM reach JOIN links l ON l.source_id = reach.id AND l.type = ${type}`);
  const out = new Map<number, { source: number; target: number }[]>();
  for (const edge of edges) {
    const list = out.get(edge.source);
    if (list) list.push(edge);
    else out.set(edge.source, [edge]);
  }
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const source of frontier) if (visit(out.get(source) ?? [], next)) return pathTo();
    frontier = next;
  }
  return undefined;
}

function keysOf(tx: Tx, ids: number[]): Map<number, string> {
  const rows = tx
    .select({ id: tickets.id, key: tickets.key })
    .from(tickets)
    .where(inArray(tickets.id, ids))
    .all();
  return new Map(rows.map((row) => [row.id, row.key]));
}

/** Updated_at moves (the ticket changed as readers see it); version does not (no field changed). */
function touch(tx: Tx, ids: number[], at: string) {
  tx.update(tickets).set({ updatedAt: at }).where(inArray(tickets.id, ids)).run();
}

/** A `link` history entry on both tickets, each from its own side ("blocks SHIP-2" / "blocked_by SHIP-1"). */
function recordLinkChange(
  tx: Tx,
  from: TicketRow,
  type: LinkType,
  to: TicketRow,
  change: 'added' | 'removed',
  user: string | undefined,
  at: string,
) {
  for (const [ticket, entry] of linkEntries(from, type, to, change))
    recordHistory(tx, ticket.id, [entry], user, at);
}

/**
 * The tickets the arguments name, for a link or an unlink; the errors say which argument (key or target) was
 * wrong.
 */
function endsOf(tx: Tx, key: string, target: string, change: 'link' | 'unlink'): [TicketRow, TicketRow] {
  const from = ticketArgument(tx, 'key', key);
  const to = ticketArgument(tx, 'target', target);
  if (from.id === to.id) throw selfLink(from.key, change);
  return [from, to];
}

/**
 * Link two tickets. Idempotent: an existing link (in either spelling) is left alone and `created` is
 * false. A blocks or duplicates link that would close a cycle is refused, naming the cycle.
 */
export function linkTickets(
  db: TicketsDb,
  input: { key: string; type: LinkType; target: string },
  user?: string,
): LinkResult & { created: boolean } {
  return db.transaction(
    (tx) => {
      const [from, to] = endsOf(tx, input.key, input.target, 'link');
      const link = canonical(from, input.type, to);
      const created = !sameRow(tx, link);
      if (created) {
        if (link.type !== 'relates') {
          // The path is looked for (to name it) only when there is one.
          const path = reaches(tx, link.type, link.targetId, link.sourceId)
            ? findPath(tx, link.type, link.targetId, link.sourceId)
            : undefined;
          if (path) {
            const cycle = [...path, link.targetId];
            const shown = elide(cycle, 0);
            const keys = keysOf(tx, shown);
            const chain = shown.map((id) => (id === 0 ? '…' : (keys.get(id) ?? `#${id}`)));
            throw linkCycle(from.key, input.type, to.key, link.type, chain);
          }
        }
        const at = nowIso();
        tx.insert(links)
          .values({ ...link, createdBy: user ?? null, createdAt: at })
          .run();
        recordLinkChange(tx, from, input.type, to, 'added', user, at);
        touch(tx, [from.id, to.id], at);
      }
      return {
        key: from.key,
        type: input.type,
        target: to.key,
        created,
        links: linksOf(tx, from.id),
        changed: created ? bothEnds(from.key, to.key) : [],
      };
    },
    { behavior: 'immediate' },
  );
}

/** Remove a link given in either spelling (SHIP-2 blocked_by SHIP-1 removes SHIP-1 blocks SHIP-2). */
export function unlinkTickets(
  db: TicketsDb,
  input: { key: string; type: LinkType; target: string },
  user?: string,
): LinkResult {
  return db.transaction(
    (tx) => {
      const [from, to] = endsOf(tx, input.key, input.target, 'unlink');
      const row = sameRow(tx, canonical(from, input.type, to));
      if (!row) {
        // Name the links the two tickets do have, if any, as read from `key`.
        const actual = LINK_TYPES.filter(
          (type) => type !== input.type && sameRow(tx, canonical(from, type, to)),
        );
        throw noSuchLink(from.key, input.type, to.key, actual);
      }
      const at = nowIso();
      tx.delete(links).where(eq(links.id, row.id)).run();
      recordLinkChange(tx, from, input.type, to, 'removed', user, at);
      touch(tx, [from.id, to.id], at);
      return {
        key: from.key,
        type: input.type,
        target: to.key,
        links: linksOf(tx, from.id),
        changed: bothEnds(from.key, to.key),
      };
    },
    { behavior: 'immediate' },
  );
}

/** Every link of one ticket, grouped by how it reads from this ticket, each group open first, then by key. */
export function linksOf(db: Tx, ticketId: number): TicketLinks {
  const rows = db
    .select({
      sourceId: links.sourceId,
      type: links.type,
      key: tickets.key,
      title: tickets.title,
      status: tickets.status,
    })
    .from(links)
    .innerJoin(
      tickets,
      or(
        and(eq(links.sourceId, ticketId), eq(tickets.id, links.targetId)),
        and(eq(links.targetId, ticketId), eq(tickets.id, links.sourceId)),
      ),
    )
    .innerJoin(projects, eq(projects.id, tickets.projectId))
    .where(or(eq(links.sourceId, ticketId), eq(links.targetId, ticketId)))
    // Open tickets first, then by key: where a type has more links than are shown, the ones still in the way
    // (a release's open blockers) are shown.
    .orderBy(sql`${inArray(tickets.status, [...OPEN_STATUSES])} DESC`, asc(projects.key), asc(tickets.number))
    .all();
  return groupLinks(rows, (row) => row.sourceId === ticketId);
}
