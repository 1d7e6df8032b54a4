/**
 * The plain data the tickets store takes and gives: no engine's types, so either engine can stand behind
 * the store interface (types.ts).
 */
import type { BulkChange, BulkResult } from '../domain/bulk.js';
import type { Comment } from '../domain/comments.js';
import type { LinkedTicket, LinkType, TicketLinks } from '../domain/links.js';
import type { Priority, Status, Ticket, TicketSummary, TicketType } from '../domain/model.js';
import type {
  HistorySpan,
  ProjectCounts,
  ProjectLabelsData,
  ProjectList,
  ProjectStatusData,
  TicketDetailsData,
  TicketLine,
  TicketPageData,
} from '../domain/pages.js';
import type { PeopleData } from '../domain/people.js';
import type { Project } from '../domain/projects.js';
import type { DeletedTicket } from '../domain/removal.js';
import type { SearchItem, SearchOptions, SimilarItem, SimilarOptions } from '../domain/search.js';
import type { HistoryEntry, Include, TicketPatch } from '../domain/tickets.js';

export type {
  BulkChange,
  BulkResult,
  Comment,
  DeletedTicket,
  HistoryEntry,
  HistorySpan,
  Include,
  LinkedTicket,
  LinkType,
  PeopleData,
  Priority,
  Project,
  ProjectCounts,
  ProjectLabelsData,
  ProjectList,
  ProjectStatusData,
  SearchItem,
  SearchOptions,
  SimilarItem,
  SimilarOptions,
  Status,
  Ticket,
  TicketDetailsData,
  TicketLine,
  TicketLinks,
  TicketPageData,
  TicketPatch,
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
