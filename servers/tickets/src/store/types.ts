/**
 * The storage of the tickets server, behind one async interface so that PostgreSQL can stand in for SQLite.
 * Keys and project keys come as the caller gave them (any case, maybe padded); an unknown one is the
 * domain's NotFound or InvalidInput, which names what it may have meant. Every write is one transaction
 * that loads what it decides on, decides with the domain's rules and writes, with nothing awaited in
 * between, so `expected_version` holds; it returns the resource URIs it changed. `by` is the configured
 * user (undefined when there is none).
 */
import type { Page } from '@shipyard/core';
import type {
  BulkChange,
  BulkResult,
  Changed,
  Comment,
  Completion,
  DeletedTicket,
  HistorySpan,
  Include,
  LinkInput,
  LinkResult,
  NewProject,
  NewTicket,
  PeopleData,
  Project,
  ProjectLabelsData,
  ProjectList,
  ProjectPatch,
  ProjectStatusData,
  SearchItem,
  SearchOptions,
  SimilarItem,
  SimilarOptions,
  Ticket,
  TicketDetailsData,
  TicketLinks,
  TicketPageData,
  TicketPatch,
  Transition,
  TransitionResult,
} from './rows.js';

export type * from './rows.js';

export interface TicketsStore {
  // Projects

  /** A new project; Conflict when the key or the name (as projectsNamed compares) is taken. */
  createProject(input: NewProject): Promise<{ project: Project } & Changed>;
  /** Rename, describe, archive or restore; `fields` names what differed (and was written). */
  updateProject(input: ProjectPatch): Promise<{ project: Project; fields: string[] } & Changed>;
  /** A page of projects by key after `after` (upper case), archived ones only with `includeArchived`. */
  listProjects(options: {
    after?: string | undefined;
    includeArchived?: boolean | undefined;
    limit: number;
  }): Promise<ProjectList>;
  /** The first `limit` project keys, archived or not, in key order (resources/list). */
  projectKeys(limit: number): Promise<string[]>;
  /** The project a key names; the domain's error when none does (prompts check it). */
  getProject(key: string): Promise<Project>;
  /** A project's status page data; `today` (YYYY-MM-DD) decides what is overdue, `limit` each list's length. */
  projectStatus(key: string, options: { today: string; limit: number }): Promise<ProjectStatusData>;
  /** The `limit` most used labels of a project's tickets. */
  projectLabels(key: string, limit: number): Promise<ProjectLabelsData>;
  /** get_project_status: a project's status and labels from one snapshot. */
  projectReport(
    key: string,
    options: { today: string; limit: number; labels: number },
  ): Promise<{ status: ProjectStatusData; labels: ProjectLabelsData }>;
  /** Project keys that start with what was typed (any case), in key order. */
  completeProjects(typed: string): Promise<Completion>;

  // Tickets

  /** A ticket with its project's next key (the counter bumped in the same transaction). */
  createTicket(input: NewTicket, by: string | undefined): Promise<{ ticket: Ticket } & Changed>;
  /** A ticket by key; the domain's error when there is none. */
  getTicket(key: string): Promise<Ticket>;
  /** get_ticket: a ticket, its counts and what `include` asks for (comments before the id `before`). */
  getTicketDetails(key: string, include: readonly Include[], before?: number): Promise<TicketDetailsData>;
  /** Change fields; `fields` names those that differed (each written to history), empty for a no-op. */
  updateTicket(
    input: TicketPatch,
    by: string | undefined,
  ): Promise<{ ticket: Ticket; fields: string[] } & Changed>;
  /** Move a ticket along the workflow (TRANSITIONS), with an optional comment. */
  transitionTicket(
    input: Transition,
    by: string | undefined,
  ): Promise<{ result: TransitionResult } & Changed>;
  /**
   * Each item applied on its own inside one transaction (a failed key changes nothing, the others apply);
   * an assignee is a name, "me" or "none" (domain resolvePerson). InvalidInput for a repeated key.
   */
  bulkUpdate(
    items: readonly BulkChange[],
    by: string | undefined,
  ): Promise<{ results: BulkResult[] } & Changed>;
  /** Delete a ticket with its comments and history; refused with children or links unless `force`. */
  deleteTicket(
    input: { key: string; force?: boolean | undefined },
    by: string | undefined,
  ): Promise<{ deleted: DeletedTicket } & Changed>;
  /** The most recently updated tickets (resources/list). */
  recentTickets(limit: number): Promise<{ key: string; title: string }[]>;
  /** A ticket's page data: `comments` last comments, `children` first children. */
  ticketPage(key: string, limits: { comments: number; children: number }): Promise<TicketPageData>;
  /** All of a ticket's links, grouped by how each reads from it, open tickets first, then by key. */
  ticketLinks(key: string): Promise<{ key: string; links: TicketLinks }>;
  /**
   * Up to `limit` changes of a ticket's history ending at change `upto` (the latest when undefined or past
   * the last), oldest first, unclipped.
   */
  ticketHistory(key: string, upto: number | undefined, limit: number): Promise<HistorySpan>;
  /** How many changes a ticket's history holds; undefined when no ticket has that exact key. */
  historyCount(key: string): Promise<number | undefined>;
  /** Ticket keys for what was typed (see reports completeTicketKeys); `openOnly` leaves closed ones out. */
  completeTicketKeys(typed: string, scope?: { openOnly?: boolean | undefined }): Promise<Completion>;

  // Comments

  /** Add a comment by `by`; the ticket's updated_at moves, not its version. */
  addComment(
    input: { key: string; body: string },
    by: string | undefined,
  ): Promise<{ key: string; comment: Comment } & Changed>;
  /** Replace the body of `by`'s own comment; Forbidden for another's. */
  updateComment(
    input: { key: string; id: number; body: string },
    by: string | undefined,
  ): Promise<{ key: string; comment: Comment } & Changed>;
  /** Delete `by`'s own comment; Forbidden for another's. */
  deleteComment(
    input: { key: string; id: number },
    by: string | undefined,
  ): Promise<{ key: string; id: number } & Changed>;

  // Links

  /** Link two tickets (no cycle of blocks or duplicates); `created` is false when the link was there. */
  linkTickets(input: LinkInput, by: string | undefined): Promise<LinkResult & { created: boolean }>;
  /** Remove a link, spelt from either end. */
  unlinkTickets(input: LinkInput, by: string | undefined): Promise<LinkResult>;

  // Search

  /** search_tickets: filters, full-text query, sort and paging (assignee already matched to the known). */
  searchTickets(options: SearchOptions): Promise<Page<SearchItem> & { note?: string }>;
  /** find_similar_tickets: likely duplicates of a new ticket, scored 0-1, best first. */
  findSimilarTickets(options: SimilarOptions): Promise<{ items: SimilarItem[]; note?: string }>;

  // People

  /** Every name a ticket or comment has used, in name order (for matching a name to the known people). */
  knownNames(): Promise<string[]>;
  /** list_people: the known names and the open tickets by assignee, from one snapshot. */
  listPeople(): Promise<PeopleData>;

  // Lifecycle

  /**
   * Report the URIs other processes change (for subscribers), or, when changes may have been missed, call
   * `changedAll`; returns the function that stops it.
   */
  watch(changed: (...uris: string[]) => void, changedAll?: () => void): () => void;
  /** Open what is opened lazily (the database). */
  warmUp(): void | Promise<void>;
  close(): void | Promise<void>;
}
