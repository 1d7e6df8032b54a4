/** Links between tickets: link (no cycle of blocks or duplicates) and unlink. */
import {
  bothEnds,
  type CanonicalLink,
  canonical,
  LINK_TYPES,
  type LinkType,
  linkCycle,
  linkEntries,
  noSuchLink,
  type StoredLinkType as StoredType,
  selfLink,
} from '../../domain/links.js';
import { elide, nowIso } from '../../domain/model.js';
import type { LinkInput, LinkResult, TicketsStore } from '../types.js';
import type { PgAccess } from './access.js';
import {
  linksOf,
  lockTickets,
  type Query,
  recordHistory,
  type TicketDbRow,
  ticketArgument,
} from './shared.js';

export type LinksPart = Pick<TicketsStore, 'linkTickets' | 'unlinkTickets'>;

/** The stored type of a link type. */
const storedType = (type: LinkType): StoredType =>
  type === 'blocked_by' ? 'blocks' : type === 'duplicated_by' ? 'duplicates' : type;

const sameLink = (a: CanonicalLink, b: CanonicalLink) =>
  a.sourceId === b.sourceId && a.type === b.type && a.targetId === b.targetId;

/**
 * Serializes the writes that add links of one type that may close a cycle (blocks, duplicates). Whether a
 * link closes a cycle depends on links anywhere in the graph, not on rows a write could lock: two links
 * each checked alone (A blocks B, and B blocks A) would both pass. So each such write holds this
 * transaction-scoped lock, and takes it before any row lock, so it cannot deadlock with writes that lock
 * ticket rows only. A caller that locks ticket rows before linking (bulk) takes it first.
 */
export async function lockLinkGraph(tx: Query, type: LinkType): Promise<void> {
  const stored = storedType(type);
  if (stored === 'relates') return;
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('shipyard.tickets.links'), hashtext($1))", [stored]);
}

/**
 * Ids on a shortest path `from` -> … -> `to` along links of this type (source to target), or undefined.
 * Whether there is one is asked first in one statement (each ticket visited once); only then are the links
 * reachable from `from` read, in one statement, and walked breadth first, each level's links in order of
 * source then target id, as SQLite's walk takes them.
 */
async function findPath(
  tx: Query,
  type: StoredType,
  from: number,
  to: number,
): Promise<number[] | undefined> {
  const reach = `WITH RECURSIVE reach(id) AS (
      SELECT $1::int
      UNION
      SELECT l.target_id FROM reach JOIN links l ON l.source_id = reach.id AND l.type = $2
    )`;
  const found = await tx.query(`${reach} SELECT 1 FROM reach WHERE id = $3 LIMIT 1`, [from, type, to]);
  if (found.rows.length === 0) return undefined;
  const { rows: edges } = await tx.query<{ source: number; target: number }>(
    `${reach} SELECT l.source_id AS source, l.target_id AS target
     FROM reach JOIN links l ON l.source_id = reach.id AND l.type = $2
     ORDER BY l.source_id, l.target_id`,
    [from, type],
  );
  const out = new Map<number, number[]>();
  for (const { source, target } of edges) {
    const list = out.get(source);
    if (list) list.push(target);
    else out.set(source, [target]);
  }
  const parent = new Map<number, number | null>([[from, null]]);
  let frontier = [from];
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const source of frontier.toSorted((a, b) => a - b)) {
      for (const target of out.get(source) ?? []) {
        if (parent.has(target)) continue;
        parent.set(target, source);
        if (target === to) {
          const path = [to];
          for (let at = parent.get(to); at != null; at = parent.get(at)) path.push(at);
          return path.reverse();
        }
        next.push(target);
      }
    }
    frontier = next;
  }
  return undefined;
}

async function keysOf(tx: Query, ids: number[]): Promise<Map<number, string>> {
  const { rows } = await tx.query<{ id: number; key: string }>(
    'SELECT id, key FROM tickets WHERE id = ANY($1)',
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row.key]));
}

/** Updated_at moves (the ticket changed as readers see it); version does not (no field changed). */
const touch = (tx: Query, ids: number[], at: string) =>
  tx.query('UPDATE tickets SET updated_at = $2 WHERE id = ANY($1)', [ids, at]);

/** A `link` history entry on both tickets, each from its own side ("blocks SHIP-2" / "blocked_by SHIP-1"). */
async function recordLinkChange(
  tx: Query,
  from: TicketDbRow,
  type: LinkType,
  to: TicketDbRow,
  change: 'added' | 'removed',
  by: string | undefined,
  at: string,
) {
  for (const [ticket, entry] of linkEntries(from, type, to, change)) {
    await recordHistory(tx, ticket.id, [entry], by, at);
  }
}

/**
 * The tickets the arguments name, for a link or an unlink, both rows locked (in id order, so two writes on
 * the same pair cannot deadlock); the errors say which argument (key or target) was wrong.
 */
async function endsOf(
  tx: Query,
  key: string,
  target: string,
  change: 'link' | 'unlink',
): Promise<[TicketDbRow, TicketDbRow]> {
  const find = async () => {
    const from = await ticketArgument(tx, 'key', key);
    const to = await ticketArgument(tx, 'target', target);
    if (from.id === to.id) {
      throw selfLink(from.key, change);
    }
    return [from, to] as [TicketDbRow, TicketDbRow];
  };
  const [from, to] = await find();
  // A ticket deleted while this write waited for its lock is refused as if it had never been.
  if ((await lockTickets(tx, [from.id, to.id])) < 2) await find();
  return [from, to];
}

/**
 * Link two tickets inside the caller's write (bulk_update_tickets links this way). Idempotent: an existing
 * link (in either spelling) is left alone and `created` is false. A blocks or duplicates link that would
 * close a cycle is refused, naming the cycle.
 */
export async function linkWithin(
  tx: Query,
  input: LinkInput,
  by: string | undefined,
): Promise<LinkResult & { created: boolean }> {
  await lockLinkGraph(tx, input.type);
  const [from, to] = await endsOf(tx, input.key, input.target, 'link');
  const link = canonical(from, input.type, to);
  const there = await tx.query('SELECT 1 FROM links WHERE source_id = $1 AND type = $2 AND target_id = $3', [
    link.sourceId,
    link.type,
    link.targetId,
  ]);
  const created = there.rows.length === 0;
  if (created) {
    if (link.type !== 'relates') {
      const path = await findPath(tx, link.type, link.targetId, link.sourceId);
      if (path) {
        const shown = elide([...path, link.targetId], 0);
        const keys = await keysOf(tx, shown);
        const chain = shown.map((id) => (id === 0 ? '…' : (keys.get(id) ?? `#${id}`)));
        throw linkCycle(from.key, input.type, to.key, link.type, chain);
      }
    }
    const at = nowIso();
    await tx.query(
      `INSERT INTO links (source_id, type, target_id, created_by, created_at) VALUES ($1, $2, $3, $4, $5)`,
      [link.sourceId, link.type, link.targetId, by ?? null, at],
    );
    await recordLinkChange(tx, from, input.type, to, 'added', by, at);
    await touch(tx, [from.id, to.id], at);
  }
  return {
    key: from.key,
    type: input.type,
    target: to.key,
    created,
    links: await linksOf(tx, from.id),
    changed: created ? bothEnds(from.key, to.key) : [],
  };
}

export function linksPart(access: PgAccess): LinksPart {
  return {
    linkTickets: (input, by) => access.write((tx) => linkWithin(tx, input, by)),

    // A link spelt either way is removed (SHIP-2 blocked_by SHIP-1 removes SHIP-1 blocks SHIP-2).
    unlinkTickets: (input, by) =>
      access.write(async (tx) => {
        const [from, to] = await endsOf(tx, input.key, input.target, 'unlink');
        const wanted = canonical(from, input.type, to);
        const removed = await tx.query(
          'DELETE FROM links WHERE source_id = $1 AND type = $2 AND target_id = $3 RETURNING id',
          [wanted.sourceId, wanted.type, wanted.targetId],
        );
        if (removed.rows.length === 0) {
          // Name the links the two tickets do have, if any, as read from `key`.
          const { rows } = await tx.query<{ source_id: number; type: StoredType; target_id: number }>(
            `SELECT source_id, type, target_id FROM links
             WHERE (source_id = $1 AND target_id = $2) OR (source_id = $2 AND target_id = $1)`,
            [from.id, to.id],
          );
          const stored = rows.map((row) => ({
            sourceId: row.source_id,
            type: row.type,
            targetId: row.target_id,
          }));
          const actual = LINK_TYPES.filter(
            (type) => type !== input.type && stored.some((row) => sameLink(row, canonical(from, type, to))),
          );
          throw noSuchLink(from.key, input.type, to.key, actual);
        }
        const at = nowIso();
        await recordLinkChange(tx, from, input.type, to, 'removed', by, at);
        await touch(tx, [from.id, to.id], at);
        return {
          key: from.key,
          type: input.type,
          target: to.key,
          links: await linksOf(tx, from.id),
          changed: bothEnds(from.key, to.key),
        };
      }),
  };
}
