/** What the PostgreSQL store's reads and writes share: row lookups, the team lock, events. */
import type { PoolClient } from 'pg';
import type { EventRow } from '../../domain/metrics.js';
import { keyId, SPRINT_KEY, STORY_KEY } from '../../domain/model.js';
import { rankBetween } from '../../domain/rank.js';
import { sprintNotFound, storyNotFound } from '../../domain/rules.js';
import { type EventDbRow, type NewEvent, type SprintRow, type StoryRow, toEvent } from '../rows.js';
import type { Actor } from '../types.js';

export type Query = Pick<PoolClient, 'query'>;

/**
 * Every write of a team holds this transaction-scoped lock first, then loads what it decides on: writes of
 * one team are serialized as on SQLite (ranks are chosen between neighbours, and a sprint's stories are
 * counted at start and close). No write locks anything before it, so writes cannot deadlock; writes of
 * different teams do not wait on each other.
 */
const teamLock = (team: string) =>
  `pg_advisory_xact_lock(hashtext('shipyard.sprint.team'), hashtext(${team}))`;

export async function lockTeam(tx: Query, team: string): Promise<void> {
  await tx.query(`SELECT ${teamLock('$1')}`, [team]);
}

/**
 * A sprint by key; `lock`: take its team's lock, then the row FOR UPDATE. Read unlocked, a sprint of the
 * team whose lock this write holds cannot change before it ends; one of another team is only refused.
 */
export async function sprintRow(tx: Query, key: string, lock = false): Promise<SprintRow> {
  const id = keyId(key, SPRINT_KEY);
  if (id !== undefined && lock) {
    await tx.query(`SELECT ${teamLock('team')} FROM sprints WHERE id = $1`, [id]);
  }
  const row =
    id === undefined
      ? undefined
      : (await tx.query<SprintRow>(`SELECT * FROM sprints WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]))
          .rows[0];
  if (!row) throw sprintNotFound(key);
  return row;
}

/** A story by key; `lock`: take its team's lock, then the row FOR UPDATE. A story never changes team. */
export async function storyRow(tx: Query, key: string, lock = false): Promise<StoryRow> {
  const id = keyId(key, STORY_KEY);
  if (id !== undefined && lock) {
    await tx.query(`SELECT ${teamLock('team')} FROM stories WHERE id = $1`, [id]);
  }
  const row =
    id === undefined
      ? undefined
      : (await tx.query<StoryRow>(`SELECT * FROM stories WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]))
          .rows[0];
  if (!row) throw storyNotFound(key);
  return row;
}

/** The rank after the last story of a team. */
export async function lastRank(tx: Query, team: string): Promise<string> {
  const last = (
    await tx.query<{ rank: string }>('SELECT rank FROM stories WHERE team = $1 ORDER BY rank DESC LIMIT 1', [
      team,
    ])
  ).rows[0];
  return rankBetween(last?.rank ?? '', null);
}

/** Record events in one statement, in the order given (ids are taken in that order). */
export async function insertEvents(tx: Query, events: readonly NewEvent[], by: Actor): Promise<void> {
  if (events.length === 0) return;
  await tx.query(
    `INSERT INTO events (story_id, sprint_id, type, from_value, to_value, points, at, actor)
     SELECT story_id, sprint_id, type, from_value, to_value, points, $7, $8
     FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[], $6::float8[])
       WITH ORDINALITY AS e(story_id, sprint_id, type, from_value, to_value, points, n)
     ORDER BY n`,
    [
      events.map((e) => e.storyId),
      events.map((e) => e.sprintId),
      events.map((e) => e.type),
      events.map((e) => e.from),
      events.map((e) => e.to),
      events.map((e) => e.points),
      by.now,
      by.actor,
    ],
  );
}

/**
 * A sprint's events in time order, ties in id order: a team's events are written under its lock, so their
 * ids are taken in the order they commit.
 */
export async function loadEvents(tx: Query, sprintId: number): Promise<EventRow[]> {
  return (
    await tx.query<EventDbRow>(
      `SELECT story_id, sprint_id, type, from_value, to_value, points, at FROM events
       WHERE sprint_id = $1 ORDER BY at, id`,
      [sprintId],
    )
  ).rows.map(toEvent);
}
