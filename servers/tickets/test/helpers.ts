import { fileURLToPath } from 'node:url';
import { type ConnectOptions, callOk, connect } from '@shipyard/testing';
import { openTicketsDatabase } from '../src/db/open.js';
import type { Ticket } from '../src/domain/model.js';
import { createTicketsServer } from '../src/server.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** A fresh in-memory tickets server and a real MCP client connected to it (user "ana" unless given). */
export async function connectTickets(options: ConnectOptions = {}) {
  const database = openTicketsDatabase(':memory:', migrations);
  const definition = createTicketsServer({ db: database.db, close: () => database.close() });
  const client = await connect(definition, { user: 'ana', ...options });
  return { client, definition, database };
}

export type TicketsClient = Awaited<ReturnType<typeof connectTickets>>['client'];

/** A ticket as get_ticket returns it. */
export type TicketOut = Ticket;

/** Create a project (default SHIP) through the client. */
export async function seedProject(client: TicketsClient, key = 'SHIP', name = 'Shipyard') {
  return callOk(client, 'create_project', { key, name });
}

/** Create a ticket through the client; returns it. */
export async function seedTicket(client: TicketsClient, args: Record<string, unknown>): Promise<TicketOut> {
  return callOk<TicketOut>(client, 'create_ticket', { project: 'SHIP', ...args });
}

/**
 * Insert `count` tickets of project 1 straight into the database (SHIP-100 on), each linked to ticket 1 as
 * `relates`: a ticket with more links than a tool call would make in a test's time.
 */
export function seedRelatedTickets(database: ReturnType<typeof openTicketsDatabase>, count: number): void {
  const { sqlite } = database;
  sqlite.transaction(() => {
    const ticket = sqlite.prepare(
      "INSERT INTO tickets (project_id, number, key, title, description, type) VALUES (1, ?, ?, 't', '', 'task')",
    );
    const relates = sqlite.prepare("INSERT INTO links (source_id, type, target_id) VALUES (1, 'relates', ?)");
    for (let n = 100; n < 100 + count; n++) relates.run(ticket.run(n, `SHIP-${n}`).lastInsertRowid);
  })();
}
