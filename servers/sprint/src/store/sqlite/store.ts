import { InvalidInput, type PageRequest, pageWindow, toPage } from '@shipyard/core';
import { recordChanges, transaction, watchChanges } from '@shipyard/db';
import type { EventRow, EventType, SprintVelocity } from '../../domain/metrics.js';
import { sprintVelocity } from '../../domain/metrics.js';
import {
  BACKLOG_URI,
  checkDates,
  keyId,
  round1,
  SPRINT_KEY,
  STORY_KEY,
  STORY_STATUSES,
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
  sprintNotFound,
  storyNotFound,
} from '../../domain/rules.js';
import {
  type EventDbRow,
  joinStatus,
  moveEvents,
  type SprintRow,
  type StoryRow,
  SUMMARY_COLUMNS,
  toEvent,
  toSprint,
  toStory,
  toSummary,
} from '../rows.js';
import type {
  Actor,
  BacklogFilter,
  BoardData,
  Move,
  NewSprint,
  NewStory,
  SprintHistoryRow,
  SprintStore,
  StoryPatch,
} from '../types.js';
import type { SprintDatabase } from './open.js';

export class SqliteSprintStore implements SprintStore {
  constructor(private readonly open: () => SprintDatabase) {}

  private get database() {
    return this.open();
  }

  private get sqlite() {
    return this.database.sqlite;
  }

  /**
   * Run a write in one IMMEDIATE transaction, recording the URIs it changed in the change log, so other
   * processes on the same file tell their subscribers too.
   */
  private write<T extends { changed: string[] }>(fn: () => T): T {
    return transaction(this.database, () => {
      const result = fn();
      recordChanges(this.database, result.changed);
      return result;
    });
  }

  watch(changed: (...uris: string[]) => void): () => void {
    return watchChanges(() => this.database, changed);
  }

  // ---- reads used inside writes (synchronous, on the same connection)

  private sprintRow(key: string): SprintRow {
    const id = keyId(key, SPRINT_KEY);
    const row =
      id === undefined
        ? undefined
        : (this.sqlite.prepare('SELECT * FROM sprints WHERE id = ?').get(id) as SprintRow | undefined);
    if (!row) throw sprintNotFound(key);
    return row;
  }

  private storyRow(key: string): StoryRow {
    const id = keyId(key, STORY_KEY);
    const row =
      id === undefined
        ? undefined
        : (this.sqlite.prepare('SELECT * FROM stories WHERE id = ?').get(id) as StoryRow | undefined);
    if (!row) throw storyNotFound(key);
    return row;
  }

  private event(
    storyId: number,
    sprintId: number | null,
    type: EventType,
    from: string | null,
    to: string | null,
    points: number | null,
    by: Actor,
  ) {
    this.sqlite
      .prepare(
        'INSERT INTO events (story_id, sprint_id, type, from_value, to_value, points, at, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(storyId, sprintId, type, from, to, points, by.now, by.actor);
  }

  /** The rank after the last story of a team. */
  private lastRank(team: string): string {
    const last = this.sqlite
      .prepare('SELECT rank FROM stories WHERE team = ? ORDER BY rank DESC LIMIT 1')
      .get(team) as { rank: string } | undefined;
    return rankBetween(last?.rank ?? '', null);
  }

  /** Record a story leaving one place and entering another (either may be the backlog). */
  private recordMove(
    story: StoryRow,
    fromSprint: number | null,
    toSprint: number | null,
    by: Actor,
    leaving: 'removed' | 'carried' = 'removed',
  ) {
    for (const e of moveEvents(story, fromSprint, toSprint, leaving)) {
      this.event(e.storyId, e.sprintId, e.type, e.from, e.to, e.points, by);
    }
  }

  // ---- sprints

  async createSprint(input: NewSprint, by: Actor) {
    checkDates(input.start_date, input.end_date);
    return this.write(() => {
      const row = this.sqlite
        .prepare(
          `INSERT INTO sprints (team, name, goal, start_date, end_date, capacity, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(
          input.team,
          input.name,
          input.goal ?? '',
          input.start_date,
          input.end_date,
          input.capacity ?? null,
          by.now,
        ) as SprintRow;
      const sprint = toSprint(row);
      return { sprint, changed: sprintUris(sprint.key) };
    });
  }

  async listSprints(filter: { team?: string | undefined; status?: string[] | undefined }, page: PageRequest) {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.team !== undefined) {
      where.push('team = ?');
      params.push(filter.team);
    }
    if (filter.status && filter.status.length > 0) {
      where.push(`status IN (${filter.status.map(() => '?').join(', ')})`);
      params.push(...filter.status);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
    const query = JSON.stringify(filter);
    const window = pageWindow(page, query);
    const total = (
      this.sqlite.prepare(`SELECT count(*) AS n FROM sprints ${clause}`).get(...params) as { n: number }
    ).n;
    const rows = this.sqlite
      .prepare(`SELECT * FROM sprints ${clause} ORDER BY id DESC LIMIT ? OFFSET ?`)
      .all(...params, window.limit, window.offset) as SprintRow[];
    return toPage(rows.map(toSprint), total, window, query);
  }

  async getSprint(key: string) {
    return toSprint(this.sprintRow(key));
  }

  async getBoard(key: string, perColumn: number): Promise<BoardData> {
    const row = this.sprintRow(key);
    const counts = this.sqlite
      .prepare(
        'SELECT status, count(*) AS n, total(points) AS points FROM stories WHERE sprint_id = ? GROUP BY status',
      )
      .all(row.id) as { status: string; n: number; points: number }[];
    const page = this.sqlite.prepare(
      `SELECT ${SUMMARY_COLUMNS} FROM stories WHERE sprint_id = ? AND status = ? ORDER BY rank LIMIT ?`,
    );
    const columns = STORY_STATUSES.map((status) => {
      const count = counts.find((c) => c.status === status);
      return {
        status,
        count: count?.n ?? 0,
        points: round1(count?.points ?? 0),
        stories: count ? (page.all(row.id, status, perColumn) as StoryRow[]).map(toSummary) : [],
      };
    });
    let committed: BoardData['committed'] = null;
    if (row.started_at !== null) {
      const c = this.sqlite
        .prepare(
          "SELECT count(*) AS n, total(points) AS points FROM events WHERE sprint_id = ? AND type = 'commit'",
        )
        .get(row.id) as { n: number; points: number };
      committed = { count: c.n, points: round1(c.points) };
    }
    return { sprint: toSprint(row), columns, committed };
  }

  async startSprint(key: string, expectedVersion: number | undefined, by: Actor) {
    return this.write(() => {
      const row = this.sprintRow(key);
      checkVersion(toSprint(row).key, row.version, expectedVersion, 'get_sprint');
      const active = this.sqlite
        .prepare("SELECT id FROM sprints WHERE team = ? AND status = 'active'")
        .get(row.team) as { id: number } | undefined;
      checkStart(toSprint(row), active ? sprintKey(active.id) : undefined);
      const stories = this.sqlite
        .prepare('SELECT id, status, points FROM stories WHERE sprint_id = ?')
        .all(row.id) as { id: number; status: string; points: number | null }[];
      let points = 0;
      for (const story of stories) {
        this.event(
          story.id,
          row.id,
          'commit',
          joinStatus(story.status, null),
          story.status,
          story.points,
          by,
        );
        points += story.points ?? 0;
      }
      const updated = this.sqlite
        .prepare(
          "UPDATE sprints SET status = 'active', started_at = ?, version = version + 1 WHERE id = ? RETURNING *",
        )
        .get(by.now, row.id) as SprintRow;
      const sprint = toSprint(updated);
      return {
        sprint,
        committed: { count: stories.length, points: round1(points) },
        changed: sprintUris(sprint.key),
      };
    });
  }

  async closeSprint(key: string, carryTo: string | null, by: Actor) {
    return this.write(() => {
      const row = this.sprintRow(key);
      const sprint = toSprint(row);
      let target: SprintRow | null = null;
      if (carryTo !== null) {
        target = this.sprintRow(carryTo);
      }
      checkCarryTarget(sprint, target ? toSprint(target) : null);
      const unfinished = this.sqlite
        .prepare("SELECT * FROM stories WHERE sprint_id = ? AND status != 'done' ORDER BY rank")
        .all(row.id) as StoryRow[];
      const move = this.sqlite.prepare(
        'UPDATE stories SET sprint_id = ?, version = version + 1, updated_at = ? WHERE id = ?',
      );
      for (const story of unfinished) {
        this.recordMove(story, row.id, target?.id ?? null, by, 'carried');
        move.run(target?.id ?? null, by.now, story.id);
      }
      const closedAt = by.now;
      const events = this.loadEvents(row.id);
      const velocity: SprintVelocity = sprintVelocity(
        {
          start_date: row.start_date,
          end_date: row.end_date,
          started_at: row.started_at,
          closed_at: closedAt,
        },
        events,
      );
      const updated = this.sqlite
        .prepare(
          "UPDATE sprints SET status = 'closed', closed_at = ?, summary = ?, version = version + 1 WHERE id = ? RETURNING *",
        )
        .get(closedAt, JSON.stringify(velocity), row.id) as SprintRow;
      const changed = [...sprintUris(sprint.key), ...VELOCITY_URIS];
      if (target) changed.push(...sprintUris(sprintKey(target.id)).slice(1));
      else if (unfinished.length > 0) changed.push(BACKLOG_URI);
      return { sprint: toSprint(updated), velocity, carried: unfinished.map((s) => storyKey(s.id)), changed };
    });
  }

  private loadEvents(sprintId: number): EventRow[] {
    return (
      this.sqlite
        .prepare(
          'SELECT story_id, sprint_id, type, from_value, to_value, points, at FROM events WHERE sprint_id = ? ORDER BY at, id',
        )
        .all(sprintId) as EventDbRow[]
    ).map(toEvent);
  }

  // ---- stories

  async createStory(input: NewStory, by: Actor) {
    return this.write(() => {
      let sprint: SprintRow | null = null;
      if (input.sprint !== undefined) {
        sprint = this.sprintRow(input.sprint);
        checkMoveTarget(toSprint(sprint), input.team);
      }
      const row = this.sqlite
        .prepare(
          `INSERT INTO stories (team, title, description, acceptance, points, priority, assignee, sprint_id, rank,
             ticket_ref, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
        )
        .get(
          input.team,
          input.title,
          input.description ?? '',
          JSON.stringify(input.acceptance ?? []),
          input.points ?? null,
          input.priority ?? 'none',
          input.assignee ?? null,
          sprint?.id ?? null,
          this.lastRank(input.team),
          input.ticket_ref ?? null,
          by.now,
          by.now,
        ) as StoryRow;
      this.event(row.id, null, 'created', null, row.status, row.points, by);
      this.recordMove(row, null, sprint?.id ?? null, by);
      const changed = sprint ? sprintUris(sprintKey(sprint.id)) : ['sprint://sprints', BACKLOG_URI];
      return { story: toStory(row), changed };
    });
  }

  async getStory(key: string) {
    return toStory(this.storyRow(key));
  }

  private storySprint(story: StoryRow): SprintRow | null {
    return story.sprint_id === null ? null : this.sprintRow(sprintKey(story.sprint_id));
  }

  private storyChanged(sprint: SprintRow | null): string[] {
    return sprint ? sprintUris(sprintKey(sprint.id)) : [BACKLOG_URI];
  }

  async updateStory(key: string, patch: StoryPatch, expectedVersion: number | undefined, by: Actor) {
    return this.write(() => {
      const row = this.storyRow(key);
      checkVersion(storyKey(row.id), row.version, expectedVersion, 'get_backlog or get_sprint');
      const sprint = this.storySprint(row);
      checkEditable(storyKey(row.id), sprint ? toSprint(sprint) : null);
      const sets: string[] = [];
      const params: unknown[] = [];
      const fields: string[] = [];
      const set = (column: string, field: string, value: unknown, old: unknown) => {
        if (value === undefined || value === old) return;
        sets.push(`${column} = ?`);
        params.push(value);
        fields.push(field);
      };
      set('title', 'title', patch.title, row.title);
      set('description', 'description', patch.description, row.description);
      if (patch.acceptance !== undefined) {
        set('acceptance', 'acceptance', JSON.stringify(patch.acceptance), row.acceptance);
      }
      set('points', 'points', patch.points, row.points);
      set('priority', 'priority', patch.priority, row.priority);
      set('assignee', 'assignee', patch.assignee, row.assignee);
      set('ticket_ref', 'ticket_ref', patch.ticket_ref, row.ticket_ref);
      if (fields.length === 0) return { story: toStory(row), fields, changed: [] };
      const updated = this.sqlite
        .prepare(
          `UPDATE stories SET ${sets.join(', ')}, version = version + 1, updated_at = ? WHERE id = ? RETURNING *`,
        )
        .get(...params, by.now, row.id) as StoryRow;
      if (fields.includes('points')) {
        this.event(
          row.id,
          row.sprint_id,
          'points',
          row.points === null ? null : String(row.points),
          updated.points === null ? null : String(updated.points),
          updated.points,
          by,
        );
      }
      return { story: toStory(updated), fields, changed: this.storyChanged(sprint) };
    });
  }

  async setStoryStatus(key: string, status: StoryStatus, expectedVersion: number | undefined, by: Actor) {
    return this.write(() => {
      const row = this.storyRow(key);
      checkVersion(storyKey(row.id), row.version, expectedVersion, 'get_sprint');
      const sprint = this.storySprint(row);
      checkEditable(storyKey(row.id), sprint ? toSprint(sprint) : null);
      const from = row.status as StoryStatus;
      if (from === status) return { story: toStory(row), from, changed: [] };
      const updated = this.sqlite
        .prepare(
          'UPDATE stories SET status = ?, version = version + 1, updated_at = ? WHERE id = ? RETURNING *',
        )
        .get(status, by.now, row.id) as StoryRow;
      this.event(row.id, row.sprint_id, 'status', from, status, row.points, by);
      return { story: toStory(updated), from, changed: this.storyChanged(sprint) };
    });
  }

  async moveStory(key: string, move: Move, expectedVersion: number | undefined, by: Actor) {
    return this.write(() => {
      const row = this.storyRow(key);
      const storyKeyText = storyKey(row.id);
      checkVersion(storyKeyText, row.version, expectedVersion, 'get_backlog or get_sprint');
      const from = this.storySprint(row);
      checkEditable(storyKeyText, from ? toSprint(from) : null);
      let to = from;
      if (move.to !== undefined) {
        to = move.to === null ? null : this.sprintRow(move.to);
        if (to) checkMoveTarget(toSprint(to), row.team);
      }
      const anchorKey = move.before ?? move.after;
      let rank = row.rank;
      if (anchorKey !== undefined) {
        const anchor = this.storyRow(anchorKey);
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
        const neighbour =
          move.before !== undefined
            ? (this.sqlite
                .prepare(
                  'SELECT rank FROM stories WHERE team = ? AND rank < ? AND id != ? ORDER BY rank DESC LIMIT 1',
                )
                .get(row.team, anchor.rank, row.id) as { rank: string } | undefined)
            : (this.sqlite
                .prepare(
                  'SELECT rank FROM stories WHERE team = ? AND rank > ? AND id != ? ORDER BY rank LIMIT 1',
                )
                .get(row.team, anchor.rank, row.id) as { rank: string } | undefined);
        rank =
          move.before !== undefined
            ? rankBetween(neighbour?.rank ?? '', anchor.rank)
            : rankBetween(anchor.rank, neighbour?.rank ?? null);
      } else if (move.to !== undefined && to?.id !== from?.id) {
        // Into another place without a neighbour named: to its end.
        rank = this.lastRank(row.team);
      }
      const toId = to?.id ?? null;
      if (rank === row.rank && toId === row.sprint_id) return { story: toStory(row), changed: [] };
      const updated = this.sqlite
        .prepare(
          'UPDATE stories SET sprint_id = ?, rank = ?, version = version + 1, updated_at = ? WHERE id = ? RETURNING *',
        )
        .get(toId, rank, by.now, row.id) as StoryRow;
      this.recordMove(row, row.sprint_id, toId, by);
      const changed = new Set([...this.storyChanged(from), ...this.storyChanged(to)]);
      return { story: toStory(updated), changed: [...changed] };
    });
  }

  async getBacklog(filter: BacklogFilter, page: PageRequest) {
    const where = ['team = ?', 'sprint_id IS NULL'];
    const params: unknown[] = [filter.team];
    if (filter.status?.length) {
      where.push(`status IN (${filter.status.map(() => '?').join(', ')})`);
      params.push(...filter.status);
    }
    if (filter.priority?.length) {
      where.push(`priority IN (${filter.priority.map(() => '?').join(', ')})`);
      params.push(...filter.priority);
    }
    if (filter.assignee !== undefined) {
      where.push('assignee = ?');
      params.push(filter.assignee);
    }
    const clause = where.join(' AND ');
    const query = JSON.stringify(filter);
    const window = pageWindow(page, query);
    const after = window.after?.[0];
    const total = (
      this.sqlite.prepare(`SELECT count(*) AS n FROM stories WHERE ${clause}`).get(...params) as { n: number }
    ).n;
    // Keyset on rank: a story moved between two pages is neither skipped nor repeated by its neighbours.
    const rows = this.sqlite
      .prepare(
        `SELECT ${SUMMARY_COLUMNS}, rank FROM stories WHERE ${clause} ${after !== undefined ? 'AND rank > ?' : ''}
         ORDER BY rank LIMIT ?`,
      )
      .all(...params, ...(after !== undefined ? [after] : []), window.limit + 1) as StoryRow[];
    const more = rows.length > window.limit;
    const shown = rows.slice(0, window.limit);
    const last = shown.at(-1);
    return toPage(shown.map(toSummary), total, window, query, {
      after: last ? [last.rank] : undefined,
      more,
    });
  }

  async closedSprints(team: string, limit: number): Promise<SprintHistoryRow[]> {
    const rows = this.sqlite
      .prepare("SELECT * FROM sprints WHERE team = ? AND status = 'closed' ORDER BY id DESC LIMIT ?")
      .all(team, limit) as SprintRow[];
    return rows.reverse().map((row) => ({
      sprint: toSprint(row),
      velocity: JSON.parse(row.summary ?? 'null') as SprintVelocity,
    }));
  }

  async sprintEvents(key: string) {
    const row = this.sprintRow(key);
    return {
      sprint: toSprint(row),
      times: {
        start_date: row.start_date,
        end_date: row.end_date,
        started_at: row.started_at,
        closed_at: row.closed_at,
      },
      events: this.loadEvents(row.id),
    };
  }

  async statusEvents(scope: { sprint: string } | { team: string; since: string }) {
    const rows =
      'sprint' in scope
        ? (this.sqlite
            .prepare(
              `SELECT story_id, sprint_id, type, from_value, to_value, points, at FROM events
               WHERE type IN ('created', 'status') AND story_id IN (SELECT story_id FROM events WHERE sprint_id = ?)
               ORDER BY at, id`,
            )
            .all(this.sprintRow(scope.sprint).id) as EventDbRow[])
        : (this.sqlite
            .prepare(
              `SELECT e.story_id, e.sprint_id, e.type, e.from_value, e.to_value, e.points, e.at FROM events e
               JOIN stories s ON s.id = e.story_id
               WHERE s.team = ? AND e.type IN ('created', 'status') AND e.at >= ?
               ORDER BY e.at, e.id`,
            )
            .all(scope.team, scope.since) as EventDbRow[]);
    return rows.map(toEvent);
  }

  async backlogPoints(team: string, through?: string) {
    let limitRank: string | null = null;
    if (through !== undefined) {
      const story = this.storyRow(through);
      if (story.sprint_id !== null || story.team !== team) {
        throw new InvalidInput(`${storyKey(story.id)} is not in team ${team}'s backlog`, {
          hint: 'Name a backlog story (get_backlog lists them), or pass points instead',
        });
      }
      limitRank = story.rank;
    }
    const row = this.sqlite
      .prepare(
        `SELECT total(points) AS points, count(*) AS n, sum(points IS NULL) AS unestimated FROM stories
         WHERE team = ? AND sprint_id IS NULL AND status != 'done' ${limitRank !== null ? 'AND rank <= ?' : ''}`,
      )
      .get(team, ...(limitRank !== null ? [limitRank] : [])) as {
      points: number;
      n: number;
      unestimated: number | null;
    };
    return { points: round1(row.points), stories: row.n, unestimated: row.unestimated ?? 0 };
  }

  async completeSprintKeys(prefix: string) {
    const digits = prefix.replace(/^s-?/i, '').replace(/\D/g, '');
    return (
      this.sqlite
        .prepare('SELECT id FROM sprints WHERE CAST(id AS TEXT) LIKE ? ORDER BY CAST(id AS TEXT) LIMIT 100')
        .all(`${digits}%`) as { id: number }[]
    ).map((row) => sprintKey(row.id));
  }
}
