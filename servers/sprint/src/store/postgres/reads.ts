/** The PostgreSQL store's reads: lists, the board, the backlog, the events metrics are made of. */
import { InvalidInput, type PageRequest, pageWindow, toPage } from '@shipyard/core';
import { pgTransaction } from '@shipyard/db';
import type { SprintVelocity } from '../../domain/metrics.js';
import { round1, STORY_STATUSES, sprintKey, storyKey } from '../../domain/model.js';
import {
  type EventDbRow,
  type SprintRow,
  type StoryRow,
  SUMMARY_COLUMNS,
  toEvent,
  toSprint,
  toStory,
  toSummary,
} from '../rows.js';
import type { BacklogFilter, BoardData, SprintHistoryRow, SprintStore } from '../types.js';
import type { SprintPgDatabase } from './open.js';
import { loadEvents, type Query, sprintRow, storyRow } from './shared.js';

type Reads = Omit<
  SprintStore,
  | 'watch'
  | 'createSprint'
  | 'startSprint'
  | 'closeSprint'
  | 'createStory'
  | 'updateStory'
  | 'setStoryStatus'
  | 'moveStory'
>;

export function postgresReads(database: () => Promise<SprintPgDatabase>): Reads {
  /** Reads that must agree, in one snapshot. */
  const read = async <T>(fn: (tx: Query) => Promise<T>) =>
    pgTransaction((await database()).pool, async (tx) => {
      await tx.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      return fn(tx);
    });
  const pool = async () => (await database()).pool;

  return {
    listSprints: (filter: { team?: string | undefined; status?: string[] | undefined }, page: PageRequest) =>
      read(async (tx) => {
        const where: string[] = [];
        const params: unknown[] = [];
        if (filter.team !== undefined) {
          params.push(filter.team);
          where.push(`team = $${params.length}`);
        }
        if (filter.status && filter.status.length > 0) {
          params.push(filter.status);
          where.push(`status = ANY($${params.length}::text[])`);
        }
        const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
        const query = JSON.stringify(filter);
        const window = pageWindow(page, query);
        const total =
          (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM sprints ${clause}`, params)).rows[0]
            ?.n ?? 0;
        const rows = (
          await tx.query<SprintRow>(
            `SELECT * FROM sprints ${clause} ORDER BY id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
            [...params, window.limit, window.offset],
          )
        ).rows;
        return toPage(rows.map(toSprint), total, window, query);
      }),

    getSprint: async (key) => toSprint(await sprintRow(await pool(), key)),

    getBoard: (key, perColumn) =>
      read(async (tx): Promise<BoardData> => {
        const row = await sprintRow(tx, key);
        const counts = (
          await tx.query<{ status: string; n: number; points: number }>(
            `SELECT status, count(*)::int AS n, coalesce(sum(points), 0) AS points FROM stories
             WHERE sprint_id = $1 GROUP BY status`,
            [row.id],
          )
        ).rows;
        // The first `perColumn` stories of every column, in rank order, in one query.
        const shown = (
          await tx.query<StoryRow>(
            `SELECT ${SUMMARY_COLUMNS}, rank FROM (
               SELECT *, row_number() OVER (PARTITION BY status ORDER BY rank) AS place FROM stories
               WHERE sprint_id = $1
             ) s WHERE place <= $2 ORDER BY rank`,
            [row.id, perColumn],
          )
        ).rows;
        const columns = STORY_STATUSES.map((status) => {
          const count = counts.find((c) => c.status === status);
          return {
            status,
            count: count?.n ?? 0,
            points: round1(count?.points ?? 0),
            stories: shown.filter((story) => story.status === status).map(toSummary),
          };
        });
        let committed: BoardData['committed'] = null;
        if (row.started_at !== null) {
          const c = (
            await tx.query<{ n: number; points: number }>(
              `SELECT count(*)::int AS n, coalesce(sum(points), 0) AS points FROM events
               WHERE sprint_id = $1 AND type = 'commit'`,
              [row.id],
            )
          ).rows[0];
          committed = { count: c?.n ?? 0, points: round1(c?.points ?? 0) };
        }
        return { sprint: toSprint(row), columns, committed };
      }),

    getStory: async (key) => toStory(await storyRow(await pool(), key)),

    getBacklog: (filter: BacklogFilter, page: PageRequest) =>
      read(async (tx) => {
        const params: unknown[] = [filter.team];
        const where = ['team = $1', 'sprint_id IS NULL'];
        if (filter.status?.length) {
          params.push(filter.status);
          where.push(`status = ANY($${params.length}::text[])`);
        }
        if (filter.priority?.length) {
          params.push(filter.priority);
          where.push(`priority = ANY($${params.length}::text[])`);
        }
        if (filter.assignee !== undefined) {
          params.push(filter.assignee);
          where.push(`assignee = $${params.length}`);
        }
        const clause = where.join(' AND ');
        const query = JSON.stringify(filter);
        const window = pageWindow(page, query);
        const after = window.after?.[0];
        const total =
          (await tx.query<{ n: number }>(`SELECT count(*)::int AS n FROM stories WHERE ${clause}`, params))
            .rows[0]?.n ?? 0;
        // Keyset on rank: a story moved between two pages is neither skipped nor repeated by its neighbours.
        const keyset = after !== undefined ? [after] : [];
        const rows = (
          await tx.query<StoryRow>(
            `SELECT ${SUMMARY_COLUMNS}, rank FROM stories WHERE ${clause}
             ${after !== undefined ? `AND rank > $${params.length + 1}` : ''}
             ORDER BY rank LIMIT $${params.length + keyset.length + 1}`,
            [...params, ...keyset, window.limit + 1],
          )
        ).rows;
        const more = rows.length > window.limit;
        const visible = rows.slice(0, window.limit);
        const last = visible.at(-1);
        return toPage(visible.map(toSummary), total, window, query, {
          after: last ? [last.rank] : undefined,
          more,
        });
      }),

    closedSprints: async (team: string, limit: number): Promise<SprintHistoryRow[]> => {
      const rows = (
        await (
          await pool()
        ).query<SprintRow>(
          "SELECT * FROM sprints WHERE team = $1 AND status = 'closed' ORDER BY id DESC LIMIT $2",
          [team, limit],
        )
      ).rows;
      return rows.reverse().map((row) => ({
        sprint: toSprint(row),
        velocity: JSON.parse(row.summary ?? 'null') as SprintVelocity,
      }));
    },

    sprintEvents: (key) =>
      read(async (tx) => {
        const row = await sprintRow(tx, key);
        return {
          sprint: toSprint(row),
          times: {
            start_date: row.start_date,
            end_date: row.end_date,
            started_at: row.started_at,
            closed_at: row.closed_at,
          },
          events: await loadEvents(tx, row.id),
        };
      }),

    statusEvents: (scope) =>
      read(async (tx) => {
        const rows =
          'sprint' in scope
            ? (
                await tx.query<EventDbRow>(
                  `SELECT story_id, sprint_id, type, from_value, to_value, points, at FROM events
                   WHERE type IN ('created', 'status')
                     AND story_id IN (SELECT story_id FROM events WHERE sprint_id = $1)
                   ORDER BY at, id`,
                  [(await sprintRow(tx, scope.sprint)).id],
                )
              ).rows
            : (
                await tx.query<EventDbRow>(
                  `SELECT e.story_id, e.sprint_id, e.type, e.from_value, e.to_value, e.points, e.at FROM events e
                   JOIN stories s ON s.id = e.story_id
                   WHERE s.team = $1 AND e.type IN ('created', 'status') AND e.at >= $2
                   ORDER BY e.at, e.id`,
                  [scope.team, scope.since],
                )
              ).rows;
        return rows.map(toEvent);
      }),

    backlogPoints: (team: string, through?: string) =>
      read(async (tx) => {
        let limitRank: string | null = null;
        if (through !== undefined) {
          const story = await storyRow(tx, through);
          if (story.sprint_id !== null || story.team !== team) {
            throw new InvalidInput(`${storyKey(story.id)} is not in team ${team}'s backlog`, {
              hint: 'Name a backlog story (get_backlog lists them), or pass points instead',
            });
          }
          limitRank = story.rank;
        }
        const row = (
          await tx.query<{ points: number; n: number; unestimated: number }>(
            `SELECT coalesce(sum(points), 0) AS points, count(*)::int AS n,
               (count(*) FILTER (WHERE points IS NULL))::int AS unestimated
             FROM stories WHERE team = $1 AND sprint_id IS NULL AND status != 'done'
             ${limitRank !== null ? 'AND rank <= $2' : ''}`,
            [team, ...(limitRank !== null ? [limitRank] : [])],
          )
        ).rows[0];
        return { points: round1(row?.points ?? 0), stories: row?.n ?? 0, unestimated: row?.unestimated ?? 0 };
      }),

    completeSprintKeys: async (prefix: string) => {
      const digits = prefix.replace(/^s-?/i, '').replace(/\D/g, '');
      return (
        await (
          await pool()
        ).query<{ id: number }>(
          'SELECT id FROM sprints WHERE id::text LIKE $1 ORDER BY id::text COLLATE "C" LIMIT 100',
          [`${digits}%`],
        )
      ).rows.map((row) => sprintKey(row.id));
    },
  };
}
