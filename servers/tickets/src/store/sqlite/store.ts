import { watchChanges } from '@shipyard/db';
import { toProject } from '../../domain/projects.js';
import type { Include } from '../../domain/tickets.js';
import type {
  BulkChange,
  LinkInput,
  NewProject,
  NewTicket,
  ProjectPatch,
  SearchOptions,
  SimilarOptions,
  TicketPatch,
  TicketsStore,
  Transition,
} from '../types.js';
import { bulkUpdate } from './bulk.js';
import { addComment, deleteComment, updateComment } from './comments.js';
import { linkTickets, unlinkTickets } from './links.js';
import { getProjectRow, getTicketRow, snapshot, type TicketsDb, toTicket } from './model.js';
import { knownNames, peopleData } from './people.js';
import { createProject, updateProject } from './projects.js';
import { deleteTicket } from './removal.js';
import {
  completeProjects,
  completeTicketKeys,
  historyCountOf,
  historySpan,
  projectKeys,
  projectLabelsData,
  projectList,
  projectStatusData,
  recentTickets,
  ticketLinksData,
  ticketPageData,
} from './reports.js';
import { findSimilarTickets, searchTickets } from './search.js';
import { createTicket, getTicketDetails, transitionTicket, updateTicket } from './tickets.js';
import { watchOtherProcesses } from './watch.js';

/**
 * The tickets store on SQLite. Each method runs synchronously on the one connection: a write is one
 * IMMEDIATE transaction, a read of several parts one read transaction (snapshot), and nothing is awaited
 * inside either.
 */
export class SqliteTicketsStore implements TicketsStore {
  constructor(
    private readonly open: () => TicketsDb,
    private readonly lifecycle: { warmUp(): void; close(): void } = { warmUp: () => {}, close: () => {} },
  ) {}

  /** The drizzle database, opened on first use. */
  get db(): TicketsDb {
    return this.open();
  }

  async createProject(input: NewProject) {
    return createProject(this.db, input);
  }

  async updateProject(input: ProjectPatch) {
    return updateProject(this.db, input);
  }

  async listProjects(options: {
    after?: string | undefined;
    includeArchived?: boolean | undefined;
    limit: number;
  }) {
    const { db } = this;
    return snapshot(db, () => projectList(db, options));
  }

  async projectKeys(limit: number) {
    return projectKeys(this.db, limit);
  }

  async getProject(key: string) {
    return toProject(getProjectRow(this.db, key));
  }

  async projectStatus(key: string, options: { today: string; limit: number }) {
    const { db } = this;
    return snapshot(db, () => projectStatusData(db, key, options));
  }

  async projectLabels(key: string, limit: number) {
    const { db } = this;
    return snapshot(db, () => projectLabelsData(db, key, limit));
  }

  async projectReport(key: string, options: { today: string; limit: number; labels: number }) {
    const { db } = this;
    return snapshot(db, () => ({
      status: projectStatusData(db, key, options),
      labels: projectLabelsData(db, key, options.labels),
    }));
  }

  async completeProjects(typed: string) {
    return completeProjects(this.db, typed);
  }

  async createTicket(input: NewTicket, by: string | undefined) {
    return createTicket(this.db, input, by);
  }

  async getTicket(key: string) {
    const { db } = this;
    return snapshot(db, () => toTicket(db, getTicketRow(db, key)));
  }

  async getTicketDetails(key: string, include: readonly Include[], before?: number) {
    return getTicketDetails(this.db, key, include, before);
  }

  async updateTicket(input: TicketPatch, by: string | undefined) {
    return updateTicket(this.db, input, by);
  }

  async transitionTicket(input: Transition, by: string | undefined) {
    return transitionTicket(this.db, input, by);
  }

  async bulkUpdate(items: readonly BulkChange[], by: string | undefined) {
    return bulkUpdate(this.db, items, by);
  }

  async deleteTicket(input: { key: string; force?: boolean | undefined }, by: string | undefined) {
    return deleteTicket(this.db, input, by);
  }

  async recentTickets(limit: number) {
    return recentTickets(this.db, limit);
  }

  async ticketPage(key: string, limits: { comments: number; children: number }) {
    const { db } = this;
    return snapshot(db, () => ticketPageData(db, key, limits));
  }

  async ticketLinks(key: string) {
    const { db } = this;
    return snapshot(db, () => ticketLinksData(db, key));
  }

  async ticketHistory(key: string, upto: number | undefined, limit: number) {
    const { db } = this;
    return snapshot(db, () => historySpan(db, key, upto, limit));
  }

  async historyCount(key: string) {
    return historyCountOf(this.db, key);
  }

  async completeTicketKeys(typed: string, scope?: { openOnly?: boolean | undefined }) {
    return completeTicketKeys(this.db, typed, { openOnly: scope?.openOnly ?? false });
  }

  async addComment(input: { key: string; body: string }, by: string | undefined) {
    return addComment(this.db, input, by);
  }

  async updateComment(input: { key: string; id: number; body: string }, by: string | undefined) {
    return updateComment(this.db, input, by);
  }

  async deleteComment(input: { key: string; id: number }, by: string | undefined) {
    return deleteComment(this.db, input, by);
  }

  async linkTickets(input: LinkInput, by: string | undefined) {
    return linkTickets(this.db, input, by);
  }

  async unlinkTickets(input: LinkInput, by: string | undefined) {
    return unlinkTickets(this.db, input, by);
  }

  async searchTickets(options: SearchOptions) {
    return searchTickets(this.db, options);
  }

  async findSimilarTickets(options: SimilarOptions) {
    return findSimilarTickets(this.db, options);
  }

  async knownNames() {
    return knownNames(this.db);
  }

  async listPeople() {
    const { db } = this;
    return snapshot(db, () => peopleData(db));
  }

  /**
   * Other processes' changes: ticket changes from the history and comment logs, and deletes and edits that
   * leave no row there from the change log.
   */
  watch(changed: (...uris: string[]) => void) {
    const stops = [watchOtherProcesses(this.db, changed), watchChanges(() => this.db, changed)];
    return () => {
      for (const stop of stops) stop();
    };
  }

  warmUp() {
    this.lifecycle.warmUp();
  }

  close() {
    this.lifecycle.close();
  }
}
