import type { Page, PageRequest } from '@shipyard/core';
import type { EventRow, SprintTimes, SprintVelocity } from '../domain/metrics.js';
import type { Priority, Sprint, Story, StoryStatus, StorySummary } from '../domain/model.js';

/** What a write changed: the resource URIs for subscribers. */
export interface Changed {
  changed: string[];
}

export interface NewSprint {
  team: string;
  name: string;
  goal?: string | undefined;
  start_date: string;
  end_date: string;
  capacity?: number | null | undefined;
}

export interface NewStory {
  team: string;
  title: string;
  description?: string | undefined;
  acceptance?: string[] | undefined;
  points?: number | null | undefined;
  priority?: Priority | undefined;
  assignee?: string | null | undefined;
  ticket_ref?: string | null | undefined;
  /** A planned or active sprint to put it in; the backlog when absent. */
  sprint?: string | undefined;
}

export interface StoryPatch {
  title?: string | undefined;
  description?: string | undefined;
  acceptance?: string[] | undefined;
  points?: number | null | undefined;
  priority?: Priority | undefined;
  assignee?: string | null | undefined;
  ticket_ref?: string | null | undefined;
}

export interface Move {
  /** A sprint key, or null for the backlog; undefined keeps the story where it is (a re-rank). */
  to?: string | null | undefined;
  before?: string | undefined;
  after?: string | undefined;
}

/** Who did it and when, for the events a write records. */
export interface Actor {
  actor: string | null;
  now: string;
}

export interface ColumnSummary {
  status: StoryStatus;
  count: number;
  points: number;
  stories: StorySummary[];
}

export interface BoardData {
  sprint: Sprint;
  columns: ColumnSummary[];
  /** The commitment recorded at start (null while planned). */
  committed: { count: number; points: number } | null;
}

export interface BacklogFilter {
  team: string;
  status?: StoryStatus[] | undefined;
  priority?: Priority[] | undefined;
  assignee?: string | undefined;
}

export interface SprintHistoryRow {
  sprint: Sprint;
  velocity: SprintVelocity;
}

/**
 * The storage of the sprint server, in SQLite (`sqlite/`) or PostgreSQL (`postgres/`). Every method is
 * async; a write loads what it decides on, decides and writes in one transaction.
 */
export interface SprintStore {
  createSprint(input: NewSprint, by: Actor): Promise<{ sprint: Sprint } & Changed>;
  listSprints(
    filter: { team?: string | undefined; status?: string[] | undefined },
    page: PageRequest,
  ): Promise<Page<Sprint>>;
  getSprint(key: string): Promise<Sprint>;
  getBoard(key: string, perColumn: number): Promise<BoardData>;
  startSprint(
    key: string,
    expectedVersion: number | undefined,
    by: Actor,
  ): Promise<{ sprint: Sprint; committed: { count: number; points: number } } & Changed>;
  closeSprint(
    key: string,
    carryTo: string | null,
    by: Actor,
  ): Promise<{ sprint: Sprint; velocity: SprintVelocity; carried: string[] } & Changed>;
  createStory(input: NewStory, by: Actor): Promise<{ story: Story } & Changed>;
  getStory(key: string): Promise<Story>;
  updateStory(
    key: string,
    patch: StoryPatch,
    expectedVersion: number | undefined,
    by: Actor,
  ): Promise<{ story: Story; fields: string[] } & Changed>;
  setStoryStatus(
    key: string,
    status: StoryStatus,
    expectedVersion: number | undefined,
    by: Actor,
  ): Promise<{ story: Story; from: StoryStatus } & Changed>;
  moveStory(
    key: string,
    move: Move,
    expectedVersion: number | undefined,
    by: Actor,
  ): Promise<{ story: Story } & Changed>;
  getBacklog(filter: BacklogFilter, page: PageRequest): Promise<Page<StorySummary>>;
  /** The last `limit` closed sprints of a team, oldest first, with the velocity recorded at close. */
  closedSprints(team: string, limit: number): Promise<SprintHistoryRow[]>;
  /** A sprint with the events that belong to it. */
  sprintEvents(key: string): Promise<{ sprint: Sprint; times: SprintTimes; events: EventRow[] }>;
  /** `created` and `status` events of a sprint's stories, or of a team's since a day. */
  statusEvents(scope: { sprint: string } | { team: string; since: string }): Promise<EventRow[]>;
  /** Backlog points from the top down to a story (included), or all of it; with unestimated stories counted. */
  backlogPoints(
    team: string,
    through?: string,
  ): Promise<{ points: number; stories: number; unestimated: number }>;
  completeSprintKeys(prefix: string): Promise<string[]>;
  /**
   * Report the URIs other processes change (for subscribers), or, when changes may have been missed, call
   * `changedAll`; returns the function that stops it.
   */
  watch(changed: (...uris: string[]) => void, changedAll?: () => void): () => void;
}
