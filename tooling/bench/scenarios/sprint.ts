// @shipyard/sprint: the board of a 2,000-story sprint, burndown and velocity without and with charts, over a
// team with 200 closed sprints, 20,000 stories and 500,000 events.
import { join } from 'node:path';
import { migrate, openDatabase } from '@shipyard/db';
import { defineBench, type SeedContext } from '../src/scenario.ts';
import { prng } from '../src/seed.ts';

const CLOSED = 200;
const PER_CLOSED = 80;
const ACTIVE_STORIES = 2_000;
const BACKLOG = 2_000;
/** Status churn on closed sprints' stories, so the events come to 500,000 in all. */
const CLOSED_EVENTS = 500_000;
const SMOKE_SCALE = 20;

const ACTIVE = `S-${CLOSED + 1}`;
const LAST_CLOSED = `S-${CLOSED}`;

export default defineBench({
  coldStartTarget: 0.6,
  scenarios: [
    {
      name: '`get_sprint`, 2,000-story sprint',
      seed: seedTeam,
      calls: [{ name: 'get_sprint', arguments: { sprint: ACTIVE } }],
      target: 10,
    },
    {
      name: '`get_burndown`, closed sprint, no chart',
      seed: seedTeam,
      calls: [{ name: 'get_burndown', arguments: { sprint: LAST_CLOSED, chart: false } }],
      target: 25,
    },
    {
      name: '`get_burndown`, 2,000-story sprint, no chart',
      seed: seedTeam,
      calls: [{ name: 'get_burndown', arguments: { sprint: ACTIVE, chart: false } }],
      runs: 100,
      target: 25,
    },
    {
      name: '`get_velocity`, last 10 sprints, no chart',
      seed: seedTeam,
      calls: [{ name: 'get_velocity', arguments: { chart: false } }],
      target: 25,
    },
    {
      name: '`get_burndown` with its chart (later calls)',
      seed: seedTeam,
      setup: [{ name: 'get_burndown', arguments: { sprint: LAST_CLOSED } }],
      calls: [{ name: 'get_burndown', arguments: { sprint: LAST_CLOSED } }],
      runs: 50,
    },
    {
      name: '`get_velocity` with its chart (later calls)',
      seed: seedTeam,
      setup: [{ name: 'get_velocity', arguments: {} }],
      calls: [{ name: 'get_velocity', arguments: {} }],
      runs: 50,
    },
  ],
});

const DAY = 86_400_000;
const POINTS = [1, 2, 3, 5, 8, 13];
const iso = (ms: number) => new Date(ms).toISOString();
const date = (ms: number) => iso(ms).slice(0, 10);

/**
 * A team's history written straight into the server's tables after its migrations: closed two-week sprints,
 * each with its commitment, status changes and a velocity recorded at close; one active sprint of 2,000
 * stories; a backlog.
 */
function seedTeam({ dataDir, root, smoke }: SeedContext): void {
  const scale = smoke ? SMOKE_SCALE : 1;
  const perClosed = Math.max(4, Math.floor(PER_CLOSED / scale));
  const activeStories = Math.floor(ACTIVE_STORIES / scale);
  const backlog = Math.floor(BACKLOG / scale);
  const churn = Math.floor(CLOSED_EVENTS / scale);
  const random = prng(42);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

  const database = openDatabase({ server: 'sprint', dataDir });
  try {
    migrate(database, join(root, 'servers/sprint/drizzle'));
    const { sqlite } = database;
    const insertSprint = sqlite.prepare(
      `INSERT INTO sprints (id, team, name, goal, start_date, end_date, capacity, status, started_at, closed_at,
         summary, version, created_at) VALUES (?, 'default', ?, '', ?, ?, 40, ?, ?, ?, ?, 1, ?)`,
    );
    const insertStory = sqlite.prepare(
      `INSERT INTO stories (id, team, title, description, acceptance, points, priority, assignee, status, sprint_id,
         rank, version, created_at, updated_at) VALUES (?, 'default', ?, '', '[]', ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
    );
    const insertEvent = sqlite.prepare(
      'INSERT INTO events (story_id, sprint_id, type, from_value, to_value, points, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const setSummary = sqlite.prepare('UPDATE sprints SET summary = ? WHERE id = ?');
    let storyId = 0;
    let events = 0;
    const event = (...args: unknown[]) => {
      insertEvent.run(...args);
      events++;
    };
    const rank = (id: number) => `${id.toString(36).padStart(5, '0')}i`;
    const story = (sprintId: number | null, status: string, points: number, at: number) => {
      storyId++;
      const priority = pick(['urgent', 'high', 'medium', 'medium', 'low', 'none']);
      const assignee = pick(['ana', 'bo', 'chen', 'dara', 'eli', null]);
      insertStory.run(
        storyId,
        `Story ${storyId}`,
        points,
        priority,
        assignee,
        status,
        sprintId,
        rank(storyId),
        iso(at),
        iso(at),
      );
      event(storyId, null, 'created', null, 'todo', points, iso(at));
      return storyId;
    };
    const start0 = Date.parse('2018-01-01T00:00:00Z');
    const closedStories: { id: number; sprint: number; at: number }[] = [];
    sqlite.transaction(() => {
      for (let s = 1; s <= CLOSED; s++) {
        const start = start0 + (s - 1) * 14 * DAY;
        const started = start + 9 * 3600_000;
        const closed = start + 13 * DAY + 17 * 3600_000;
        insertSprint.run(
          s,
          `Sprint ${s}`,
          date(start),
          date(start + 13 * DAY),
          'closed',
          iso(started),
          iso(closed),
          null,
          iso(start - 2 * DAY),
        );
        let committed = 0;
        let completed = 0;
        const rows: number[] = [];
        for (let i = 0; i < perClosed; i++) {
          const points = pick(POINTS);
          const done = random() < 0.85;
          const id = story(s, done ? 'done' : 'todo', points, start - DAY);
          event(id, s, 'added', 'todo|', `S-${s}`, points, iso(start - DAY));
          event(id, s, 'commit', 'todo|', 'todo', points, iso(started));
          committed += points;
          let at = started + Math.floor(random() * 5 * DAY);
          event(id, s, 'status', 'todo', 'in_progress', points, iso(at));
          if (done) {
            at += Math.floor(random() * 3 * DAY);
            event(id, s, 'status', 'in_progress', 'in_review', points, iso(at));
            at += Math.floor(random() * DAY);
            event(id, s, 'status', 'in_review', 'done', points, iso(Math.min(at, closed - 3600_000)));
            completed += points;
          }
          rows.push(id);
          closedStories.push({ id, sprint: s, at: started });
        }
        const summary = {
          committed,
          completed,
          added: 0,
          removed: 0,
          carried: 0,
          completion_rate: Math.round((completed / committed) * 100) / 100,
        };
        setSummary.run(JSON.stringify(summary), s);
      }
      // The active sprint: two weeks from today's Monday, 2,000 stories, a few days in.
      const now = Date.now();
      const monday = now - (((new Date(now).getUTCDay() + 6) % 7) + 3) * DAY;
      const start = Date.parse(`${date(monday)}T00:00:00Z`);
      const started = start + 9 * 3600_000;
      const active = CLOSED + 1;
      insertSprint.run(
        active,
        `Sprint ${active}`,
        date(start),
        date(start + 13 * DAY),
        'active',
        iso(started),
        null,
        null,
        iso(start - 2 * DAY),
      );
      for (let i = 0; i < activeStories; i++) {
        const points = pick(POINTS);
        const statuses = ['todo', 'in_progress', 'in_review', 'done', 'blocked'];
        const status = pick(statuses);
        const id = story(active, status, points, start - DAY);
        event(id, active, 'added', 'todo|', `S-${active}`, points, iso(start - DAY));
        event(id, active, 'commit', 'todo|', 'todo', points, iso(started));
        if (status !== 'todo') {
          event(id, active, 'status', 'todo', status, points, iso(started + Math.floor(random() * 3 * DAY)));
        }
      }
      for (let i = 0; i < backlog; i++) story(null, 'todo', pick(POINTS), start0);
      // Status churn on closed sprints' stories (blocked and back) up to the events wanted.
      while (events < churn) {
        const { id, sprint, at } = pick(closedStories);
        const when = at + Math.floor(random() * DAY);
        event(id, sprint, 'status', 'in_progress', 'blocked', null, iso(when));
        event(id, sprint, 'status', 'blocked', 'in_progress', null, iso(when + 3600_000));
      }
    })();
  } finally {
    database.close();
  }
}
