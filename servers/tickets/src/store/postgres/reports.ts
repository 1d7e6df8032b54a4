/** A project's status and labels, and the known people, each read in one snapshot. */
import { sql } from 'drizzle-orm';
import { OPEN_STATUSES, type Priority, priorityRank, type Status } from '../../domain/model.js';
import { toProject } from '../../domain/projects.js';
import type { PeopleData, ProjectLabelsData, ProjectStatusData, TicketLine, TicketsStore } from '../types.js';
import type { PgAccess, Query } from './access.js';
import { rowOf, rowsOf, sqlList } from './find.js';
import { getProjectRow } from './shared.js';

export type ReportsPart = Pick<
  TicketsStore,
  'projectStatus' | 'projectLabels' | 'projectReport' | 'knownNames' | 'listPeople'
>;

export function reportsPart(access: PgAccess): ReportsPart {
  return {
    projectStatus: (key, options) => access.read((q) => projectStatusData(q, key, options)),
    projectLabels: (key, limit) => access.read((q) => projectLabelsData(q, key, limit)),
    projectReport: (key, options) =>
      access.read(async (q) => ({
        status: await projectStatusData(q, key, options),
        labels: await projectLabelsData(q, key, options.labels),
      })),
    knownNames: () => access.read(knownNames),
    listPeople: () =>
      access.read(async (q): Promise<PeopleData> => {
        const open = await rowsOf<{ assignee: string; open: number }>(
          q,
          sql`SELECT assignee, count(*)::int AS open FROM tickets
              WHERE status IN (${sqlList(OPEN_STATUSES)}) AND assignee IS NOT NULL GROUP BY assignee`,
        );
        return { names: await knownNames(q), open };
      }),
  };
}

/** Every name a ticket or comment has used (the people table), in name order (by code point, as SQLite). */
const knownNames = async (q: Query) =>
  (await rowsOf<{ name: string }>(q, sql`SELECT name FROM people ORDER BY name COLLATE "C"`)).map(
    (row) => row.name,
  );

/** The columns of a ticket a list on a page shows (TicketLine). */
const LINE = sql.raw('t.key, t.title, t.status, t.assignee, t.created_at, t.updated_at, t.due_date');
const OPEN = sql`t.status IN (${sqlList(OPEN_STATUSES)})`;

/** What a project's status page shows; `today` decides what is overdue. */
async function projectStatusData(
  q: Query,
  key: string,
  options: { today: string; limit: number },
): Promise<ProjectStatusData> {
  const project = await getProjectRow(q, key);
  const n = options.limit;
  const today = options.today;
  const inProject = sql`t.project_id = ${project.id}::int`;
  const lines = (where: ReturnType<typeof sql>, order: ReturnType<typeof sql>) =>
    rowsOf<TicketLine>(
      q,
      sql`SELECT ${LINE} FROM tickets t WHERE ${where} ORDER BY ${order} LIMIT ${n}::int`,
    );

  // Statuses and priorities in code point order, as SQLite's GROUP BY gives them.
  const byStatus = await rowsOf<{ status: Status; n: number }>(
    q,
    sql`SELECT t.status, count(*)::int AS n FROM tickets t WHERE ${inProject}
        GROUP BY t.status ORDER BY t.status COLLATE "C"`,
  );
  // Open tickets by priority, and how many are overdue, in one pass over the open rows.
  const openRows = await rowsOf<{ priority: Priority; n: number; overdue: number }>(
    q,
    sql`SELECT t.priority, count(*)::int AS n, count(*) FILTER (WHERE t.due_date < ${today}::text)::int AS overdue
        FROM tickets t WHERE ${inProject} AND ${OPEN} GROUP BY t.priority ORDER BY t.priority COLLATE "C"`,
  );
  const urgent = await lines(
    sql`${inProject} AND ${OPEN} AND t.priority_rank = ${priorityRank('urgent')}::int`,
    sql`t.created_at, t.id`,
  );
  // Open tickets with an open blocker: the first n, then their open blockers, so a ticket with hundreds of
  // blockers cannot crowd the others out, and names its first few.
  const blockedWhere = sql`${inProject} AND ${OPEN} AND EXISTS (SELECT 1 FROM links l
    JOIN tickets b ON b.id = l.source_id
    WHERE l.target_id = t.id AND l.type = 'blocks' AND b.status IN (${sqlList(OPEN_STATUSES)}))`;
  const blockedTotal =
    (await rowOf<{ n: number }>(q, sql`SELECT count(*)::int AS n FROM tickets t WHERE ${blockedWhere}`))?.n ??
    0;
  const blockedTickets = await rowsOf<TicketLine & { id: number }>(
    q,
    sql`SELECT t.id, ${LINE} FROM tickets t WHERE ${blockedWhere}
        ORDER BY t.priority_rank, t.number LIMIT ${n}::int`,
  );
  const blockers = new Map<number, string[]>();
  if (blockedTickets.length > 0) {
    for (const row of await rowsOf<{ id: number; key: string }>(
      q,
      sql`SELECT l.target_id AS id, b.key FROM links l JOIN tickets b ON b.id = l.source_id
          WHERE l.type = 'blocks' AND l.target_id IN (${sqlList(blockedTickets.map((ticket) => ticket.id))})
            AND b.status IN (${sqlList(OPEN_STATUSES)})
          ORDER BY b.project_id, b.number`,
    )) {
      const keys = blockers.get(row.id);
      if (keys) keys.push(row.key);
      else blockers.set(row.id, [row.key]);
    }
  }
  const overdue = await lines(
    sql`${inProject} AND ${OPEN} AND t.due_date < ${today}::text`,
    sql`t.due_date, t.id`,
  );
  const recent = await lines(inProject, sql`t.updated_at DESC, t.id DESC`);

  return {
    project: toProject(project),
    byStatus: Object.fromEntries(byStatus.map((row) => [row.status, row.n])),
    openByPriority: Object.fromEntries(openRows.map((row) => [row.priority, row.n])),
    overdueTotal: openRows.reduce((sum, row) => sum + row.overdue, 0),
    urgent,
    blocked: {
      total: blockedTotal,
      tickets: blockedTickets.map(({ id, ...line }) => ({ ...line, blockers: blockers.get(id) ?? [] })),
    },
    overdue,
    recent,
  };
}

/**
 * The labels a project's tickets carry, the most used first (`limit` of them), each with how many tickets
 * carry it and how many of those are open, and how many labels there are.
 */
async function projectLabelsData(q: Query, key: string, limit: number): Promise<ProjectLabelsData> {
  const project = await getProjectRow(q, key);
  // The tickets are grouped by their set of labels first (a project has few sets, and JSON is read once per
  // set, not per ticket); each set then adds its tickets to each of its labels.
  const rows = await rowsOf<{ label: string; tickets: number; open: number; count: number }>(
    q,
    sql`SELECT j.label, sum(s.n)::int AS tickets, sum(s.open)::int AS open, (count(*) OVER ())::int AS count
        FROM (SELECT labels, count(*) AS n, count(*) FILTER (WHERE status IN (${sqlList(OPEN_STATUSES)})) AS open
              FROM tickets WHERE project_id = ${project.id}::int AND labels <> '[]' GROUP BY labels) s,
             jsonb_array_elements_text(s.labels::jsonb) AS j(label)
        GROUP BY j.label ORDER BY tickets DESC, j.label COLLATE "C" LIMIT ${limit}::int`,
  );
  return {
    project: project.key,
    count: rows[0]?.count ?? 0,
    labels: rows.map(({ label, tickets, open }) => ({ label, tickets, open })),
  };
}
