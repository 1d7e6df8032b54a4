/**
 * Agile metrics as pure functions over event rows: nothing here knows where the rows come from.
 *
 * Event rows, per type (`sprint` is the sprint the event belongs to, null for the backlog):
 * - `created`: a story was created; `to` is its status.
 * - `commit`: the story was in the sprint when it started; `to` is its status, `points` its points.
 * - `added` / `removed`: the story moved into / out of the sprint; `from` / `to` name the other place
 *   (a sprint key, or null for the backlog) and `status` its status at the time.
 * - `carried`: close_sprint moved the unfinished story out; `to` is where it went.
 * - `status`: `from` -> `to`. `points`: `from` -> `to` (as text), `points` the new value.
 */
import { addDays, dayRange, round1 } from './model.js';

export type EventType = 'created' | 'commit' | 'added' | 'removed' | 'carried' | 'status' | 'points';

export interface EventRow {
  story: string;
  sprint: string | null;
  type: EventType;
  from: string | null;
  to: string | null;
  /** The story's points when the event happened (after it, for a points change). */
  points: number | null;
  /** Status of the story for `added`, `removed` and `commit` events. */
  status?: string | null;
  at: string;
}

export interface SprintTimes {
  start_date: string;
  end_date: string;
  started_at: string | null;
  closed_at: string | null;
}

export interface SprintVelocity {
  committed: number;
  completed: number;
  added: number;
  removed: number;
  carried: number;
  /** completed / committed, null when nothing was committed. */
  completion_rate: number | null;
}

export interface ScopeChange {
  date: string;
  story: string;
  kind: 'added' | 'removed' | 're-estimated';
  /** Points the change added to the scope (negative: removed). */
  points: number;
}

interface StoryState {
  inScope: boolean;
  points: number;
  status: string;
}

/** Events in time order; rows of one time keep the order given. */
const chronological = (events: readonly EventRow[]) =>
  events
    .map((event, index) => ({ event, index }))
    .sort((a, b) => (a.event.at < b.event.at ? -1 : a.event.at > b.event.at ? 1 : a.index - b.index))
    .map(({ event }) => event);

/**
 * Replay a sprint's events in order, keeping each story's scope, points and status, and calling `onScope`
 * for every change of scope after the sprint started (what was committed is no change).
 */
function replay(
  sprint: SprintTimes,
  events: readonly EventRow[],
  onEvent?: (event: EventRow, stories: Map<string, StoryState>) => void,
  onScope?: (change: ScopeChange) => void,
  beforeEvent?: (event: EventRow, stories: Map<string, StoryState>) => void,
): Map<string, StoryState> {
  const stories = new Map<string, StoryState>();
  const started = sprint.started_at;
  const afterStart = (at: string) => started !== null && at > started;
  for (const event of chronological(events)) {
    beforeEvent?.(event, stories);
    const points = event.points ?? 0;
    const state = stories.get(event.story);
    switch (event.type) {
      case 'commit':
        stories.set(event.story, { inScope: true, points, status: event.status ?? event.to ?? 'todo' });
        break;
      case 'added':
        stories.set(event.story, { inScope: true, points, status: event.status ?? 'todo' });
        if (afterStart(event.at))
          onScope?.({ date: event.at.slice(0, 10), story: event.story, kind: 'added', points });
        break;
      case 'removed':
        if (state) state.inScope = false;
        if (afterStart(event.at)) {
          onScope?.({ date: event.at.slice(0, 10), story: event.story, kind: 'removed', points: -points });
        }
        break;
      case 'status':
        if (state) state.status = event.to ?? state.status;
        break;
      case 'points':
        if (state) {
          const delta = points - state.points;
          state.points = points;
          if (state.inScope && delta !== 0 && afterStart(event.at)) {
            onScope?.({
              date: event.at.slice(0, 10),
              story: event.story,
              kind: 're-estimated',
              points: delta,
            });
          }
        }
        break;
      // `carried` leaves the story in the sprint's scope, unfinished; `created` happens in the backlog.
      default:
        break;
    }
    onEvent?.(event, stories);
  }
  return stories;
}

const remaining = (stories: Map<string, StoryState>) => {
  let sum = 0;
  for (const state of stories.values()) if (state.inScope && state.status !== 'done') sum += state.points;
  return round1(sum);
};

/**
 * Velocity of one sprint from its events: committed at start, completed by the end, scope added and removed
 * after start (re-estimates of stories in the sprint count as added or removed), carried over at close.
 * committed + added - removed is the scope at the end.
 */
export function sprintVelocity(sprint: SprintTimes, events: readonly EventRow[]): SprintVelocity {
  let committed = 0;
  let added = 0;
  let removed = 0;
  let carried = 0;
  const stories = replay(
    sprint,
    events,
    (event) => {
      if (event.type === 'commit') committed += event.points ?? 0;
      if (event.type === 'carried') carried += event.points ?? 0;
    },
    (change) => {
      if (change.points > 0) added += change.points;
      else removed -= change.points;
    },
  );
  let completed = 0;
  for (const state of stories.values())
    if (state.inScope && state.status === 'done') completed += state.points;
  return {
    committed: round1(committed),
    completed: round1(completed),
    added: round1(added),
    removed: round1(removed),
    carried: round1(carried),
    completion_rate: committed > 0 ? Math.round((completed / committed) * 100) / 100 : null,
  };
}

export interface BurndownDay {
  date: string;
  ideal: number;
  /** Points not done at the end of the day; null for a day still to come. */
  actual: number | null;
  /** Points of scope the day added (negative: removed), 0 when none. */
  scope_change: number;
}

export interface Burndown {
  committed: number;
  days: BurndownDay[];
  scope_changes: ScopeChange[];
}

/**
 * Per day from start to end date: the ideal line from the committed points to zero, and the points not done
 * at the end of each day up to `today` (or the close). Days before the start count everything planned.
 */
export function burndown(sprint: SprintTimes, events: readonly EventRow[], today: string): Burndown {
  const days = dayRange(sprint.start_date, sprint.end_date);
  let committed = 0;
  for (const event of events) if (event.type === 'commit') committed += event.points ?? 0;
  const last = sprint.started_at === null ? null : (sprint.closed_at?.slice(0, 10) ?? today);
  const actualByDay = new Map<string, number>();
  const changes: ScopeChange[] = [];
  // The remaining points after the last event of each day, summed once a day: as the first event of the
  // next day is about to apply, and at the end.
  let currentDay: string | undefined;
  const stories = replay(
    sprint,
    events.filter((event) => event.type !== 'carried'),
    undefined,
    (change) => changes.push(change),
    (event, state) => {
      const day = event.at.slice(0, 10);
      if (currentDay !== undefined && day !== currentDay) actualByDay.set(currentDay, remaining(state));
      currentDay = day;
    },
  );
  if (currentDay !== undefined) actualByDay.set(currentDay, remaining(stories));
  const n = days.length;
  let carry = 0;
  // Days before the first one shown fold into it.
  for (const [day, value] of [...actualByDay].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (day < sprint.start_date) carry = value;
  }
  const out: BurndownDay[] = days.map((date, i) => {
    const value = actualByDay.get(date);
    if (value !== undefined) carry = value;
    const shown = last !== null && date <= last;
    const scope = changes
      .filter((change) => change.date === date)
      .reduce((sum, change) => sum + change.points, 0);
    return {
      date,
      ideal: round1(n > 1 ? committed * (1 - i / (n - 1)) : 0),
      actual: shown ? carry : null,
      scope_change: round1(scope),
    };
  });
  // Changes before the first day (started early) are shown on it.
  for (const change of changes) {
    if (change.date < sprint.start_date && out[0])
      out[0].scope_change = round1(out[0].scope_change + change.points);
  }
  return { committed: round1(committed), days: out, scope_changes: changes };
}

export interface VelocityRow extends SprintVelocity {
  sprint: string;
  name: string;
}

export interface VelocitySummary {
  average_completed: number | null;
  average_completion_rate: number | null;
  /** Points per sprint the completed points change by, from a least-squares line (oldest first). */
  trend_per_sprint: number | null;
  trend: 'rising' | 'falling' | 'flat' | 'unknown';
}

/** Average and trend of the completed points of sprints given oldest first. */
export function velocitySummary(rows: readonly VelocityRow[]): VelocitySummary {
  if (rows.length === 0) {
    return {
      average_completed: null,
      average_completion_rate: null,
      trend_per_sprint: null,
      trend: 'unknown',
    };
  }
  const ys = rows.map((row) => row.completed);
  const mean = ys.reduce((a, b) => a + b, 0) / ys.length;
  const rates = rows.flatMap((row) => (row.completion_rate === null ? [] : [row.completion_rate]));
  const average_completion_rate =
    rates.length > 0 ? Math.round((rates.reduce((a, b) => a + b, 0) / rates.length) * 100) / 100 : null;
  if (rows.length < 2) {
    return {
      average_completed: round1(mean),
      average_completion_rate,
      trend_per_sprint: null,
      trend: 'unknown',
    };
  }
  const xMean = (ys.length - 1) / 2;
  let num = 0;
  let den = 0;
  ys.forEach((y, x) => {
    num += (x - xMean) * (y - mean);
    den += (x - xMean) ** 2;
  });
  const slope = num / den;
  // A change under 5% of the average a sprint is noise.
  const trend = Math.abs(slope) < Math.max(0.05 * mean, 1e-9) ? 'flat' : slope > 0 ? 'rising' : 'falling';
  return { average_completed: round1(mean), average_completion_rate, trend_per_sprint: round1(slope), trend };
}

/** Linear-interpolation percentile (p in 0-100) of values; undefined for none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = sorted[low] as number;
  const b = sorted[high] as number;
  return a + (b - a) * (rank - low);
}

export interface Durations {
  count: number;
  median_hours: number | null;
  p85_hours: number | null;
}

export interface CycleTime {
  /** From first entering in_progress to done, per story done. */
  cycle: Durations;
  /** Time spent in each status before leaving it. */
  per_status: Record<string, Durations>;
}

const hoursBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 3_600_000;

const durations = (hours: number[]): Durations => {
  const at = (p: number) => {
    const value = percentile(hours, p);
    return value === undefined ? null : round1(value);
  };
  return { count: hours.length, median_hours: at(50), p85_hours: at(85) };
};

/**
 * Cycle time from `created` and `status` events: how long stories stayed in each status (a status left
 * later), and from the first start of work (in_progress) to done for stories that are done.
 */
export function cycleTime(events: readonly EventRow[]): CycleTime {
  const byStory = new Map<string, EventRow[]>();
  for (const event of chronological(events)) {
    if (event.type !== 'status' && event.type !== 'created') continue;
    const list = byStory.get(event.story) ?? [];
    list.push(event);
    byStory.set(event.story, list);
  }
  const perStatus = new Map<string, number[]>();
  const cycles: number[] = [];
  for (const list of byStory.values()) {
    let started: string | undefined;
    for (let i = 0; i < list.length; i++) {
      const event = list[i] as EventRow;
      const status = event.to ?? '';
      const next = list[i + 1];
      if (next) {
        const spent = perStatus.get(status) ?? [];
        spent.push(hoursBetween(event.at, next.at));
        perStatus.set(status, spent);
      }
      if (status === 'in_progress' && started === undefined) started = event.at;
      if (status === 'done' && started !== undefined && !next) cycles.push(hoursBetween(started, event.at));
    }
  }
  const per_status: Record<string, Durations> = {};
  for (const [status, hours] of [...perStatus].sort(([a], [b]) => (a < b ? -1 : 1))) {
    per_status[status] = durations(hours);
  }
  return { cycle: durations(cycles), per_status };
}

/** mulberry32: a small seeded PRNG, so a seed gives the same forecast every time. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fewer closed sprints than this is too little history to forecast from. */
export const MIN_HISTORY = 3;
/** A forecast gives up beyond this many sprints (a velocity near zero). */
const MAX_SPRINTS = 200;

export interface ForecastInput {
  /** Completed points of past sprints. */
  velocities: readonly number[];
  points: number;
  seed: number;
  trials?: number;
  /** Sprint length in days, and the day the first forecast sprint starts. */
  sprint_days: number;
  from: string;
}

export type Forecast =
  | { enough_history: false; reason: string }
  | {
      enough_history: true;
      sprints: { p50: number; p85: number; p95: number };
      dates: { p50: string; p85: string; p95: string };
      trials: number;
    };

/**
 * Monte Carlo forecast: each trial draws past velocities (with replacement) sprint after sprint until the
 * points are done; the percentiles of the sprint counts, and the dates those sprints end.
 */
export function forecast(input: ForecastInput): Forecast {
  const { velocities, points } = input;
  if (velocities.length < MIN_HISTORY) {
    return {
      enough_history: false,
      reason: `Only ${velocities.length} closed sprint(s) with a recorded velocity; a forecast needs at least ${MIN_HISTORY}`,
    };
  }
  if (!velocities.some((v) => v > 0)) {
    return { enough_history: false, reason: 'No past sprint completed any points' };
  }
  const trials = input.trials ?? 10_000;
  const random = prng(input.seed);
  const counts: number[] = [];
  for (let t = 0; t < trials; t++) {
    let done = 0;
    let sprints = 0;
    while (done < points && sprints < MAX_SPRINTS) {
      done += velocities[Math.floor(random() * velocities.length)] as number;
      sprints++;
    }
    counts.push(sprints);
  }
  counts.sort((a, b) => a - b);
  // Nearest rank: a whole number of sprints that many trials finished within.
  const at = (p: number) => counts[Math.max(0, Math.ceil((p / 100) * counts.length) - 1)] as number;
  const sprints = { p50: at(50), p85: at(85), p95: at(95) };
  const end = (n: number) => addDays(input.from, n * input.sprint_days - 1);
  return {
    enough_history: true,
    sprints,
    dates: { p50: end(sprints.p50), p85: end(sprints.p85), p95: end(sprints.p95) },
    trials,
  };
}
