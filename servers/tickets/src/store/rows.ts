/**
 * The plain data the tickets store takes and gives: no engine's types, so either engine can stand behind
 * the store interface (types.ts).
 */
import type { BulkChange, BulkResult } from '../domain/bulk.js';
import type { Comment } from '../domain/comments.js';
import type { LinkedTicket, LinkType, TicketLinks } from '../domain/links.js';
import type { Priority, Status, Ticket, TicketSummary, TicketType } from '../domain/model.js';
import type { PeopleData } from '../domain/people.js';
import type { Project } from '../domain/projects.js';
import type { DeletedTicket } from '../domain/removal.js';
import type { SearchItem, SearchOptions, SimilarItem, SimilarOptions } from '../domain/search.js';
import type { HistoryEntry, Include } from '../domain/tickets.js';

export type {
  BulkChange,
  BulkResult,
  Comment,
  DeletedTicket,
  HistoryEntry,
  Include,
  LinkedTicket,
  LinkType,
  PeopleData,
  Priority,
  Project,
  SearchItem,
  SearchOptions,
  SimilarItem,
  SimilarOptions,
  Status,
  Ticket,
  TicketLinks,
  TicketSummary,
  TicketType,
};

/** What a write changed: the resource URIs for subscribers (empty for a no-op). */
export interface Changed {
  changed: string[];
}

export interface NewProject {
  /** Upper case, checked against PROJECT_KEY by the tool. */
  key: string;
  name: string;
  description?: string | undefined;
}

export interface ProjectPatch {
  /** As given (any case, trimmed or not). */
  key: string;
  name?: string | undefined;
  description?: string | undefined;
  archived?: boolean | undefined;
}

/** A project in the project list, with its ticket counts. */
export interface ProjectCounts {
  key: string;
  name: string;
  description: string;
  archived: boolean;
  /** Its open tickets (backlog, todo, in_progress, in_review). */
  open: number;
  /** Its tickets, open or not. */
  total: number;
}

/** One page of the project list, by key, as one snapshot read it. */
export interface ProjectList {
  /** At most `limit`, in key order. */
  projects: ProjectCounts[];
  /** The projects listed (archived ones only when asked for), on every page. */
  total: number;
  /** Whether more projects follow this page. */
  more: boolean;
  /** Archived projects left out (0 when they were asked for). */
  archived: number;
}

/** A ticket as a list on a page shows it. */
export interface TicketLine {
  key: string;
  title: string;
  status: Status;
  assignee: string | null;
  created_at: string;
  updated_at: string;
  due_date: string | null;
}

/** What a project's status page (tickets://projects/{project}) shows, read in one snapshot. */
export interface ProjectStatusData {
  project: Project;
  /** Tickets by status (a status without tickets may be left out). */
  byStatus: Partial<Record<Status, number>>;
  /** Open tickets by priority (a priority without any may be left out). */
  openByPriority: Partial<Record<Priority, number>>;
  /** Open tickets due before `today`. */
  overdueTotal: number;
  /** The oldest open urgent tickets (created first), at most `limit`. */
  urgent: TicketLine[];
  /** Open tickets with an open blocker, by priority then number, at most `limit`, with all their count. */
  blocked: { total: number; tickets: (TicketLine & { blockers: string[] })[] };
  /** Open tickets due before `today`, soonest due first, at most `limit`. */
  overdue: TicketLine[];
  /** The most recently updated tickets, at most `limit`. */
  recent: TicketLine[];
}

/** The labels a project's tickets carry, the most used first. */
export interface ProjectLabelsData {
  project: string;
  /** How many labels the project's tickets carry in all. */
  count: number;
  labels: { label: string; tickets: number; open: number }[];
}

/** What a ticket's page (tickets://{key}) shows, read in one snapshot. */
export interface TicketPageData {
  ticket: Ticket;
  links: TicketLinks;
  /** The last `comments` comments, oldest first, and how many it has in all. */
  comments: { total: number; comments: Comment[] };
  /** The first `children` children by number, and how many it has in all. */
  children: { total: number; tickets: Pick<TicketLine, 'key' | 'title' | 'status'>[] };
}

/** One ticket with counts, and what get_ticket asked to include, unclipped, as one snapshot read it. */
export interface TicketDetailsData {
  ticket: Ticket;
  comments_total: number;
  history_total: number;
  /** With `comments`: the last ones (before the id `before` when given), oldest first. */
  comments?: Comment[];
  /** With `links`: every link, grouped by how it reads from this ticket. */
  links?: TicketLinks;
  /** With `history`: the last entries, oldest first. */
  history?: HistoryEntry[];
}

/** A span of a ticket's history: changes `first` to `last` (the first change is 1), oldest first. */
export interface HistorySpan {
  key: string;
  /** How many changes it has in all. */
  total: number;
  first: number;
  last: number;
  entries: HistoryEntry[];
}

export interface NewTicket {
  project: string;
  title: string;
  description?: string | undefined;
  type?: TicketType | undefined;
  priority?: Priority | undefined;
  /** As known (the tool matched it to the known people); null is nobody. */
  assignee?: string | null | undefined;
  /** Left out: the user who creates it. */
  reporter?: string | null | undefined;
  labels?: readonly string[] | undefined;
  estimate?: number | null | undefined;
  due_date?: string | null | undefined;
  parent?: string | null | undefined;
}

export interface TicketPatch {
  key: string;
  expected_version?: number | undefined;
  title?: string | undefined;
  description?: string | undefined;
  type?: TicketType | undefined;
  priority?: Priority | undefined;
  assignee?: string | null | undefined;
  /** Replaces all labels. */
  labels?: readonly string[] | undefined;
  estimate?: number | null | undefined;
  due_date?: string | null | undefined;
  parent?: string | null | undefined;
}

export interface Transition {
  key: string;
  status: Status;
  resolution?: string | undefined;
  comment?: string | undefined;
  expected_version?: number | undefined;
}

/** A ticket's status after a transition. */
export interface TransitionResult {
  key: string;
  status: Status;
  resolution: string | null;
  version: number;
  updated_at: string;
}

export interface LinkInput {
  key: string;
  type: LinkType;
  target: string;
}

/** The links of `key` after a link or unlink. */
export interface LinkResult extends Changed {
  key: string;
  type: LinkType;
  target: string;
  links: TicketLinks;
}

/** Completions: the values shown and how many match in all. */
export type Completion = string[] | { values: string[]; total: number };
