import type { Completion } from '@shipyard/core';
import {
  and,
  asc,
  count,
  countDistinct,
  desc,
  eq,
  gt,
  inArray,
  isNotNull,
  isNull,
  like,
  lt,
  type SQL,
  sql,
} from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { normaliseKey } from '../../domain/keys.js';
import { OPEN_STATUSES, priorityRank } from '../../domain/model.js';
import { toProject } from '../../domain/projects.js';
import { completionShares, LIMITS } from '../../domain/reports.js';
import type {
  HistorySpan,
  ProjectLabelsData,
  ProjectList,
  ProjectStatusData,
  TicketLine,
  TicketPageData,
} from '../rows.js';
import { lastComments } from './comments.js';
import { linksOf } from './links.js';
import {
  findTicketRow,
  getProjectRow,
  getTicketRow,
  sqlList,
  type TicketRow,
  type Tx,
  toTicket,
} from './model.js';
import { history, links, projects, tickets } from './schema.js';

/** A stored row as a list on a page shows it. */
const toLine = (
  row: Pick<TicketRow, 'key' | 'title' | 'status' | 'assignee' | 'createdAt' | 'updatedAt' | 'dueDate'>,
): TicketLine => ({
  key: row.key,
  title: row.title,
  status: row.status,
  assignee: row.assignee,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
  due_date: row.dueDate,
});

// ---------------------------------------------------------------------------------------------------------
// tickets://projects

/**
 * A page of projects (`limit` of them after the key `after`) with their ticket counts, ordered by key, and
 * how many there are. Archived projects only when asked.
 */
export function projectList(
  db: Tx,
  options: { after?: string | undefined; includeArchived?: boolean | undefined; limit: number },
): ProjectList {
  const { after, includeArchived = false, limit } = options;
  const listed = includeArchived ? undefined : isNull(projects.archivedAt);
  const total = db.select({ n: count() }).from(projects).where(listed).get()?.n ?? 0;
  // One more than shown, to know whether any follow.
  const rows = db
    .select()
    .from(projects)
    .where(and(listed, after === undefined ? undefined : gt(projects.key, after)))
    .orderBy(asc(projects.key))
    .limit(limit + 1)
    .all();
  const more = rows.length > limit;
  if (more) rows.pop();
  const counts = db
    .select({
      projectId: tickets.projectId,
      all: count(),
      open: sql<number>`sum(case when ${inArray(tickets.status, [...OPEN_STATUSES])} then 1 else 0 end)`,
    })
    .from(tickets)
    .groupBy(tickets.projectId)
    .all();
  const byProject = new Map(counts.map((row) => [row.projectId, row]));
  const archived = includeArchived
    ? 0
    : (db.select({ n: count() }).from(projects).where(isNotNull(projects.archivedAt)).get()?.n ?? 0);
  return {
    projects: rows.map((row) => ({
      key: row.key,
      name: row.name,
      description: row.description,
      archived: row.archivedAt !== null,
      open: Number(byProject.get(row.id)?.open ?? 0),
      total: byProject.get(row.id)?.all ?? 0,
    })),
    total,
    more,
    archived,
  };
}

// ---------------------------------------------------------------------------------------------------------
// tickets://projects/{project}

/** What a project's status page shows (call inside one snapshot); `today` decides what is overdue. */
export function projectStatusData(
  db: Tx,
  key: string,
  options: { today: string; limit: number },
): ProjectStatusData {
  const project = getProjectRow(db, key);
  const inProject = eq(tickets.projectId, project.id);
  const open = and(inProject, inArray(tickets.status, [...OPEN_STATUSES]));
  const n = options.limit;
  const today = options.today;

  // Each part below is driven by the index that suits it (see `hidden`), not all by the project's open rows.
  const byStatus = new Map(
    db
      .select({ status: tickets.status, n: count() })
      .from(tickets)
      .where(inProject)
      .groupBy(tickets.status)
      .all()
      .map((row) => [row.status, row.n]),
  );
  // Open tickets by priority, and how many are overdue, in one pass over the open rows.
  const openRows = db
    .select({
      priority: tickets.priority,
      n: count(),
      overdue: sql<number>`coalesce(sum(${tickets.dueDate} < ${today}), 0)`,
    })
    .from(tickets)
    .where(open)
    .groupBy(tickets.priority)
    .all();
  const byPriority = new Map(openRows.map((row) => [row.priority, row.n]));
  const overdueTotal = openRows.reduce((sum, row) => sum + Number(row.overdue), 0);
  const total = [...byStatus.values()].reduce((a, b) => a + b, 0);
  const _openCount = OPEN_STATUSES.reduce((sum, status) => sum + (byStatus.get(status) ?? 0), 0);
  /** The project's and the status filters with their indexes hidden (a unary +), so another one drives. */
  const hidden = {
    project: sql`+${tickets.projectId} = ${project.id}`,
    open: sql`+${tickets.status} IN (${sqlList(OPEN_STATUSES)})`,
  };

  // Urgent tickets are few: through the priority index, not the project's open rows.
  const urgent = db
    .select()
    .from(tickets)
    .where(and(hidden.project, hidden.open, eq(tickets.priorityRank, priorityRank('urgent'))))
    .orderBy(asc(tickets.createdAt), asc(tickets.id))
    .limit(n)
    .all();

  const blocker = alias(tickets, 'blocker');
  const blockedWhere = and(open, eq(links.type, 'blocks'), inArray(blocker.status, [...OPEN_STATUSES]));
  const blockedTotal =
    db
      .select({ n: countDistinct(tickets.id) })
      .from(links)
      .innerJoin(tickets, eq(tickets.id, links.targetId))
      .innerJoin(blocker, eq(blocker.id, links.sourceId))
      .where(blockedWhere)
      .get()?.n ?? 0;
  // The first n blocked tickets, then their open blockers: a ticket with hundreds of blockers cannot crowd
  // the others out, and names its first few.
  const blockedTickets = db
    .select({
      id: tickets.id,
      key: tickets.key,
      title: tickets.title,
      status: tickets.status,
      assignee: tickets.assignee,
      createdAt: tickets.createdAt,
      updatedAt: tickets.updatedAt,
      dueDate: tickets.dueDate,
    })
    .from(links)
    .innerJoin(tickets, eq(tickets.id, links.targetId))
    .innerJoin(blocker, eq(blocker.id, links.sourceId))
    .where(blockedWhere)
    .groupBy(tickets.id)
    .orderBy(asc(tickets.priorityRank), asc(tickets.number))
    .limit(n)
    .all();
  const blockers = new Map<number, string[]>();
  for (const row of db
    .select({ id: links.targetId, key: blocker.key })
    .from(links)
    .innerJoin(blocker, eq(blocker.id, links.sourceId))
    .where(
      and(
        eq(links.type, 'blocks'),
        inArray(
          links.targetId,
          blockedTickets.map((ticket) => ticket.id),
        ),
        inArray(blocker.status, [...OPEN_STATUSES]),
      ),
    )
    .orderBy(asc(blocker.projectId), asc(blocker.number))
    .all()) {
    const keys = blockers.get(row.id);
    if (keys) keys.push(row.key);
    else blockers.set(row.id, [row.key]);
  }
  const overdueWhere = and(open, lt(tickets.dueDate, today));
  const overdue = db
    .select()
    .from(tickets)
    .where(overdueWhere)
    .orderBy(asc(tickets.dueDate), asc(tickets.id))
    .limit(n)
    .all();

  // A project with a fair share of all tickets meets n of its own soon when walking the updated_at index
  // from the newest (about n * all / total rows); a small one is cheaper to read and sort.
  const all = db.select({ n: count() }).from(tickets).get()?.n ?? 0;
  const recent = db
    .select()
    .from(tickets)
    .where(total * total > n * all ? hidden.project : inProject)
    .orderBy(desc(tickets.updatedAt), desc(tickets.id))
    .limit(n)
    .all();

  return {
    project: toProject(project),
    byStatus: Object.fromEntries(byStatus),
    openByPriority: Object.fromEntries(byPriority),
    overdueTotal,
    urgent: urgent.map(toLine),
    blocked: {
      total: blockedTotal,
      tickets: blockedTickets.map((row) => ({ ...toLine(row), blockers: blockers.get(row.id) ?? [] })),
    },
    overdue: overdue.map(toLine),
    recent: recent.map(toLine),
  };
}

// ---------------------------------------------------------------------------------------------------------
// tickets://{key}

/** What a ticket's page shows (call inside one snapshot): the ticket, its links, last comments, children. */
export function ticketPageData(
  db: Tx,
  key: string,
  limits: { comments: number; children: number },
): TicketPageData {
  const row = getTicketRow(db, key);
  const childWhere = eq(tickets.parentId, row.id);
  const children = db
    .select({ key: tickets.key, title: tickets.title, status: tickets.status })
    .from(tickets)
    .where(childWhere)
    .orderBy(asc(tickets.number))
    .limit(limits.children)
    .all();
  return {
    ticket: toTicket(db, row),
    links: linksOf(db, row.id),
    comments: lastComments(db, row.id, limits.comments),
    children: {
      total: db.select({ n: count() }).from(tickets).where(childWhere).get()?.n ?? 0,
      tickets: children,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// tickets://{key}/links

/** All of a ticket's links, grouped by how each reads from it. */
export function ticketLinksData(db: Tx, key: string) {
  const row = getTicketRow(db, key);
  return { key: row.key, links: linksOf(db, row.id) };
}

/**
 * The labels a project's tickets carry, the most used first (LIMITS.labels of them), each with how many
 * tickets carry it and how many of those are open, and how many labels there are: so a label is picked from
 * those in use rather than coined again with another spelling.
 */
export function projectLabelsData(db: Tx, key: string, limit: number): ProjectLabelsData {
  const project = getProjectRow(db, key);
  // The tickets are grouped by their set of labels first (a project has few sets, and JSON is read once per
  // set, not per ticket); each set then adds its tickets to each of its labels.
  const rows = db.all<{ label: string; tickets: number; open: number; count: number }>(sql`
    SELECT j.value AS label, sum(s.n) AS tickets, sum(s.open) AS open, count(*) OVER () AS count
    FROM (SELECT labels, count(*) AS n, sum(status IN (${sqlList(OPEN_STATUSES)})) AS open FROM tickets
          WHERE project_id = ${project.id} AND labels <> '[]' GROUP BY labels) s, json_each(s.labels) j
    GROUP BY j.value ORDER BY tickets DESC, label LIMIT ${limit}`);
  return {
    project: project.key,
    count: rows[0]?.count ?? 0,
    labels: rows.map(({ label, tickets, open }) => ({ label, tickets, open })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// tickets://{key}/history

/** How many changes a ticket's history holds. */
const historyCount = (db: Tx, ticketId: number) =>
  db.select({ n: count() }).from(history).where(eq(history.ticketId, ticketId)).get()?.n ?? 0;

/** How many changes the ticket with this key (as stored, after normalising) has; undefined for none. */
export function historyCountOf(db: Tx, key: string): number | undefined {
  const row = findTicketRow(db, normaliseKey(key));
  return row ? historyCount(db, row.id) : undefined;
}

/**
 * Up to `limit` changes of a ticket's history ending at change `upto` (the last change when undefined or
 * out of range), oldest first (call inside one snapshot).
 */
export function historySpan(db: Tx, key: string, upto: number | undefined, limit: number): HistorySpan {
  const ticket = getTicketRow(db, key);
  const total = historyCount(db, ticket.id);
  const last = upto === undefined || upto < 1 || upto > total ? total : upto;
  const first = Math.max(last - limit + 1, 1);
  const rows =
    last < first
      ? []
      : db
          .select()
          .from(history)
          .where(eq(history.ticketId, ticket.id))
          .orderBy(asc(history.id))
          .limit(last - first + 1)
          .offset(first - 1)
          .all();
  return {
    key: ticket.key,
    total,
    first,
    last,
    entries: rows.map((entry) => ({
      at: entry.changedAt,
      by: entry.changedBy,
      field: entry.field,
      old: entry.oldValue,
      new: entry.newValue,
    })),
  };
}

/** The most recently updated tickets, for resources/list. */
export function recentTickets(db: Tx, limit: number) {
  return db
    .select({ key: tickets.key, title: tickets.title })
    .from(tickets)
    .orderBy(desc(tickets.updatedAt), desc(tickets.id))
    .limit(limit)
    .all();
}

export function projectKeys(db: Tx, limit: number): string[] {
  return db
    .select({ key: projects.key })
    .from(projects)
    .orderBy(asc(projects.key))
    .limit(limit)
    .all()
    .map((r) => r.key);
}

/**
 * The first keys of each project whose key starts with `prefix` (`SH`: SHIP and SHOP), in key order, shared
 * among them so that a project with many tickets does not fill the answer: each gets as many as it has, up
 * to an equal part of what the smaller ones leave; past LIMITS.completions projects, the first of each of
 * the first ones by key.
 */
function projectsFirstKeys(db: Tx, prefix: string, open: SQL | undefined): Completion {
  const counts = db
    .select({ id: projects.id, key: projects.key, n: count() })
    .from(tickets)
    .innerJoin(projects, eq(projects.id, tickets.projectId))
    .where(and(open, like(projects.key, `${prefix}%`)))
    .groupBy(projects.id)
    .orderBy(projects.key)
    .all();
  const share = completionShares(counts);
  const values = counts.flatMap((project) => {
    const part = share.get(project.id) ?? 0;
    if (part === 0) return [];
    return db
      .select({ key: tickets.key })
      .from(tickets)
      .where(and(open, eq(tickets.projectId, project.id)))
      .orderBy(asc(tickets.number))
      .limit(part)
      .all()
      .map((row) => row.key);
  });
  return { values, total: counts.reduce((sum, project) => sum + project.n, 0) };
}

/** The first LIMITS.completions keys, and how many there are in all (counted only past the cap). */
function firstKeys(query: { limit(n: number): { all(): { key: string }[] } }, all: () => number): Completion {
  const values = query
    .limit(LIMITS.completions)
    .all()
    .map((row) => row.key);
  return { values, total: values.length < LIMITS.completions ? values.length : all() };
}

/** Project keys starting with what was typed (case-insensitive), in key order. */
export function completeProjects(db: Tx, typed: string): Completion {
  const prefix = typed.trim().toUpperCase();
  if (!/^[A-Z0-9]*$/.test(prefix)) return [];
  const where = like(projects.key, `${prefix}%`);
  return firstKeys(
    db.select({ key: projects.key }).from(projects).where(where).orderBy(asc(projects.key)),
    () => db.select({ n: count() }).from(projects).where(where).get()?.n ?? 0,
  );
}

/**
 * Ticket keys for what was typed, with how many match. `SHIP-4` gives SHIP-4, SHIP-40…SHIP-49, SHIP-400…
 * (numeric order); `SHIP-` or `SH` give the keys of the matching projects in numeric order; nothing typed
 * gives the most recently updated tickets. `openOnly` leaves out done and cancelled tickets.
 */
export function completeTicketKeys(db: Tx, typed: string, scope: { openOnly?: boolean } = {}): Completion {
  const text = typed.trim().toUpperCase();
  // A workflow on open work (triage, break-down) is offered open tickets only.
  const open = scope.openOnly ? inArray(tickets.status, [...OPEN_STATUSES]) : undefined;
  if (text === '') {
    return firstKeys(
      db
        .select({ key: tickets.key })
        .from(tickets)
        .where(open)
        .orderBy(desc(tickets.updatedAt), desc(tickets.id)),
      () => db.select({ n: count() }).from(tickets).where(open).get()?.n ?? 0,
    );
  }
  const match = /^([A-Z][A-Z0-9]*)(?:-([0-9]*))?$/.exec(text);
  if (!match) return [];
  const [, project = '', digits] = match;
  if (digits === undefined) return projectsFirstKeys(db, project, open);
  const where = and(
    open,
    eq(projects.key, project),
    digits ? sql`cast(${tickets.number} as text) like ${`${digits}%`}` : undefined,
  );
  const inProject = eq(projects.id, tickets.projectId);
  return firstKeys(
    db
      .select({ key: tickets.key })
      .from(tickets)
      .innerJoin(projects, inProject)
      .where(where)
      .orderBy(asc(tickets.number)),
    () => db.select({ n: count() }).from(tickets).innerJoin(projects, inProject).where(where).get()?.n ?? 0,
  );
}
