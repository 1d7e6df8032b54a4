/** What the store reads for each page a resource or a tool shows; the pages are made in reports.ts. */
import type { Comment } from './comments.js';
import type { TicketLinks } from './links.js';
import type { Priority, Status, Ticket } from './model.js';
import type { Project } from './projects.js';
import type { HistoryEntry } from './tickets.js';

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
