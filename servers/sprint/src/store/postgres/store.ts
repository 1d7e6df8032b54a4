/** The PostgreSQL store: the same interface as the SQLite one, over a pool, one transaction per write. */
import { InvalidInput } from '@shipyard/core';
import { notifyChanges, pgTransaction, watchPostgres } from '@shipyard/db';
import { type SprintVelocity, sprintVelocity } from '../../domain/metrics.js';
import {
  BACKLOG_URI,
  checkDates,
  round1,
  type StoryStatus,
  sprintKey,
  sprintUris,
  storyKey,
  VELOCITY_URIS,
} from '../../domain/model.js';
import { rankBetween } from '../../domain/rank.js';
import {
  checkCarryTarget,
  checkEditable,
  checkMoveTarget,
  checkStart,
  checkVersion,
} from '../../domain/rules.js';
import { moveEvents, type NewEvent, type SprintRow, type StoryRow, toSprint, toStory } from '../rows.js';
import type { Actor, Changed, Move, NewSprint, NewStory, SprintStore, StoryPatch } from '../types.js';
import type { SprintPgDatabase } from './open.js';
import { postgresReads } from './reads.js';
import { insertEvents, lastRank, loadEvents, lockTeam, type Query, sprintRow, storyRow } from './shared.js';

const storyChanged = (sprint: SprintRow | null): string[] =>
  sprint ? sprintUris(sprintKey(sprint.id)) : [BACKLOG_URI];

export function createPostgresStore(database: () => Promise<SprintPgDatabase>): SprintStore {
  /**
   * One write transaction, on one connection. The URIs it changed are announced in it, so other processes
   * and replicas hear of it when, and only if, it commits.
   */
  const write = async <T extends Changed>(fn: (tx: Query) => Promise<T>) => {
    const { pool, schema } = await database();
    return pgTransaction(pool, async (tx) => {
      // What a write reads after its team's lock must be what the last writer committed, whatever the
      // database's default isolation: each statement of READ COMMITTED reads the latest commits.
      await tx.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      const result = await fn(tx);
      await notifyChanges(tx, schema, result.changed);
      return result;
    });
  };
  /** The sprint a story is in (of the team whose lock the write holds). */
  const storySprint = (tx: Query, story: StoryRow) =>
    story.sprint_id === null ? null : sprintRow(tx, sprintKey(story.sprint_id));

  return {
    ...postgresReads(database),

    // Every process's writes, this one's among them: resources/updated only tells a client to read again.
    watch: watchPostgres(database),

    createSprint: async (input: NewSprint, by: Actor) => {
      checkDates(input.start_date, input.end_date);
      return write(async (tx) => {
        const row = (
          await tx.query<SprintRow>(
            `INSERT INTO sprints (team, name, goal, start_date, end_date, capacity, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING *`,
            [
              input.team,
              input.name,
              input.goal ?? '',
              input.start_date,
              input.end_date,
              input.capacity ?? null,
              by.now,
            ],
          )
        ).rows[0] as SprintRow;
        const sprint = toSprint(row);
        return { sprint, changed: sprintUris(sprint.key) };
      });
    },

    startSprint: (key, expectedVersion, by) =>
      write(async (tx) => {
        const row = await sprintRow(tx, key, true);
        checkVersion(toSprint(row).key, row.version, expectedVersion, 'get_sprint');
        const active = (
          await tx.query<{ id: number }>("SELECT id FROM sprints WHERE team = $1 AND status = 'active'", [
            row.team,
          ])
        ).rows[0];
        checkStart(toSprint(row), active ? sprintKey(active.id) : undefined);
        // The commitment: one event per story in the sprint, as it stands now.
        const committed = (
          await tx.query<{ points: number | null }>(
            `INSERT INTO events (story_id, sprint_id, type, from_value, to_value, points, at, actor)
             SELECT id, sprint_id, 'commit', status || '|', status, points, $2, $3
             FROM stories WHERE sprint_id = $1 ORDER BY id RETURNING points`,
            [row.id, by.now, by.actor],
          )
        ).rows;
        const updated = (
          await tx.query<SprintRow>(
            "UPDATE sprints SET status = 'active', started_at = $1, version = version + 1 WHERE id = $2 RETURNING *",
            [by.now, row.id],
          )
        ).rows[0] as SprintRow;
        const sprint = toSprint(updated);
        const points = committed.reduce((sum, story) => sum + (story.points ?? 0), 0);
        return {
          sprint,
          committed: { count: committed.length, points: round1(points) },
          changed: sprintUris(sprint.key),
        };
      }),

    closeSprint: (key, carryTo, by) =>
      write(async (tx) => {
        const row = await sprintRow(tx, key, true);
        const sprint = toSprint(row);
        const target = carryTo === null ? null : await sprintRow(tx, carryTo);
        checkCarryTarget(sprint, target ? toSprint(target) : null);
        const unfinished = (
          await tx.query<StoryRow>(
            "SELECT * FROM stories WHERE sprint_id = $1 AND status != 'done' ORDER BY rank FOR UPDATE",
            [row.id],
          )
        ).rows;
        const toId = target?.id ?? null;
        await insertEvents(
          tx,
          unfinished.flatMap((story) => moveEvents(story, row.id, toId, 'carried')),
          by,
        );
        if (unfinished.length > 0) {
          await tx.query(
            'UPDATE stories SET sprint_id = $1, version = version + 1, updated_at = $2 WHERE id = ANY($3::int[])',
            [toId, by.now, unfinished.map((story) => story.id)],
          );
        }
        const closedAt = by.now;
        const velocity: SprintVelocity = sprintVelocity(
          {
            start_date: row.start_date,
            end_date: row.end_date,
            started_at: row.started_at,
            closed_at: closedAt,
          },
          await loadEvents(tx, row.id),
        );
        const updated = (
          await tx.query<SprintRow>(
            "UPDATE sprints SET status = 'closed', closed_at = $1, summary = $2, version = version + 1 WHERE id = $3 RETURNING *",
            [closedAt, JSON.stringify(velocity), row.id],
          )
        ).rows[0] as SprintRow;
        const changed = [...sprintUris(sprint.key), ...VELOCITY_URIS];
        if (target) changed.push(...sprintUris(sprintKey(target.id)).slice(1));
        else if (unfinished.length > 0) changed.push(BACKLOG_URI);
        return {
          sprint: toSprint(updated),
          velocity,
          carried: unfinished.map((s) => storyKey(s.id)),
          changed,
        };
      }),

    createStory: (input: NewStory, by: Actor) =>
      write(async (tx) => {
        await lockTeam(tx, input.team);
        let sprint: SprintRow | null = null;
        if (input.sprint !== undefined) {
          sprint = await sprintRow(tx, input.sprint);
          checkMoveTarget(toSprint(sprint), input.team);
        }
        const row = (
          await tx.query<StoryRow>(
            `INSERT INTO stories (team, title, description, acceptance, points, priority, assignee, sprint_id,
               rank, ticket_ref, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING *`,
            [
              input.team,
              input.title,
              input.description ?? '',
              JSON.stringify(input.acceptance ?? []),
              input.points ?? null,
              input.priority ?? 'none',
              input.assignee ?? null,
              sprint?.id ?? null,
              await lastRank(tx, input.team),
              input.ticket_ref ?? null,
              by.now,
            ],
          )
        ).rows[0] as StoryRow;
        const created: NewEvent = {
          storyId: row.id,
          sprintId: null,
          type: 'created',
          from: null,
          to: row.status,
          points: row.points,
        };
        await insertEvents(tx, [created, ...moveEvents(row, null, sprint?.id ?? null)], by);
        const changed = sprint ? sprintUris(sprintKey(sprint.id)) : ['sprint://sprints', BACKLOG_URI];
        return { story: toStory(row), changed };
      }),

    updateStory: (key: string, patch: StoryPatch, expectedVersion, by) =>
      write(async (tx) => {
        const row = await storyRow(tx, key, true);
        checkVersion(storyKey(row.id), row.version, expectedVersion, 'get_backlog or get_sprint');
        const sprint = await storySprint(tx, row);
        checkEditable(storyKey(row.id), sprint ? toSprint(sprint) : null);
        const sets: string[] = [];
        const params: unknown[] = [];
        const fields: string[] = [];
        const set = (column: string, value: unknown, old: unknown) => {
          if (value === undefined || value === old) return;
          params.push(value);
          sets.push(`${column} = $${params.length}`);
          fields.push(column);
        };
        set('title', patch.title, row.title);
        set('description', patch.description, row.description);
        if (patch.acceptance !== undefined) {
          set('acceptance', JSON.stringify(patch.acceptance), row.acceptance);
        }
        set('points', patch.points, row.points);
        set('priority', patch.priority, row.priority);
        set('assignee', patch.assignee, row.assignee);
        set('ticket_ref', patch.ticket_ref, row.ticket_ref);
        if (fields.length === 0) return { story: toStory(row), fields, changed: [] };
        const updated = (
          await tx.query<StoryRow>(
            `UPDATE stories SET ${sets.join(', ')}, version = version + 1, updated_at = $${params.length + 1}
             WHERE id = $${params.length + 2} RETURNING *`,
            [...params, by.now, row.id],
          )
        ).rows[0] as StoryRow;
        if (fields.includes('points')) {
          const text = (points: number | null) => (points === null ? null : String(points));
          await insertEvents(
            tx,
            [
              {
                storyId: row.id,
                sprintId: row.sprint_id,
                type: 'points',
                from: text(row.points),
                to: text(updated.points),
                points: updated.points,
              },
            ],
            by,
          );
        }
        return { story: toStory(updated), fields, changed: storyChanged(sprint) };
      }),

    setStoryStatus: (key: string, status: StoryStatus, expectedVersion, by) =>
      write(async (tx) => {
        const row = await storyRow(tx, key, true);
        checkVersion(storyKey(row.id), row.version, expectedVersion, 'get_sprint');
        const sprint = await storySprint(tx, row);
        checkEditable(storyKey(row.id), sprint ? toSprint(sprint) : null);
        const from = row.status as StoryStatus;
        if (from === status) return { story: toStory(row), from, changed: [] };
        const updated = (
          await tx.query<StoryRow>(
            'UPDATE stories SET status = $1, version = version + 1, updated_at = $2 WHERE id = $3 RETURNING *',
            [status, by.now, row.id],
          )
        ).rows[0] as StoryRow;
        await insertEvents(
          tx,
          [
            {
              storyId: row.id,
              sprintId: row.sprint_id,
              type: 'status',
              from,
              to: status,
              points: row.points,
            },
          ],
          by,
        );
        return { story: toStory(updated), from, changed: storyChanged(sprint) };
      }),

    moveStory: (key: string, move: Move, expectedVersion, by) =>
      write(async (tx) => {
        const row = await storyRow(tx, key, true);
        const storyKeyText = storyKey(row.id);
        checkVersion(storyKeyText, row.version, expectedVersion, 'get_backlog or get_sprint');
        const from = await storySprint(tx, row);
        checkEditable(storyKeyText, from ? toSprint(from) : null);
        let to = from;
        if (move.to !== undefined) {
          to = move.to === null ? null : await sprintRow(tx, move.to);
          if (to) checkMoveTarget(toSprint(to), row.team);
        }
        const anchorKey = move.before ?? move.after;
        let rank = row.rank;
        if (anchorKey !== undefined) {
          const anchor = await storyRow(tx, anchorKey);
          if (anchor.id === row.id) {
            throw new InvalidInput(`${storyKeyText} cannot be placed before or after itself`, {
              hint: 'Name another story in before or after, or leave both out to keep its place',
            });
          }
          if (anchor.team !== row.team) {
            throw new InvalidInput(`${storyKey(anchor.id)} belongs to team ${anchor.team}, not ${row.team}`, {
              hint: 'Name a story of the same team in before or after',
            });
          }
          // The neighbour on the other side in the team's one order, skipping the story itself.
          const neighbour = (
            await tx.query<{ rank: string }>(
              move.before !== undefined
                ? 'SELECT rank FROM stories WHERE team = $1 AND rank < $2 AND id != $3 ORDER BY rank DESC LIMIT 1'
                : 'SELECT rank FROM stories WHERE team = $1 AND rank > $2 AND id != $3 ORDER BY rank LIMIT 1',
              [row.team, anchor.rank, row.id],
            )
          ).rows[0];
          rank =
            move.before !== undefined
              ? rankBetween(neighbour?.rank ?? '', anchor.rank)
              : rankBetween(anchor.rank, neighbour?.rank ?? null);
        } else if (move.to !== undefined && to?.id !== from?.id) {
          // Into another place without a neighbour named: to its end.
          rank = await lastRank(tx, row.team);
        }
        const toId = to?.id ?? null;
        if (rank === row.rank && toId === row.sprint_id) return { story: toStory(row), changed: [] };
        const updated = (
          await tx.query<StoryRow>(
            'UPDATE stories SET sprint_id = $1, rank = $2, version = version + 1, updated_at = $3 WHERE id = $4 RETURNING *',
            [toId, rank, by.now, row.id],
          )
        ).rows[0] as StoryRow;
        await insertEvents(tx, moveEvents(row, row.sprint_id, toId), by);
        const changed = new Set([...storyChanged(from), ...storyChanged(to)]);
        return { story: toStory(updated), changed: [...changed] };
      }),
  };
}
