import { fileURLToPath } from 'node:url';
import { type ConnectOptions, callOk, connect } from '@shipyard/testing';
import { createSprintServer } from '../src/server.js';
import { openSprintDatabase } from '../src/store/sqlite/open.js';
import { SqliteSprintStore } from '../src/store/sqlite/store.js';

export const migrations = fileURLToPath(new URL('../drizzle', import.meta.url));
export const bin = fileURLToPath(new URL('../dist/index.cjs', import.meta.url));

/** A clock the test moves by hand. */
export function clock(start: string) {
  let current = new Date(start);
  return {
    now: () => current,
    set: (iso: string) => {
      current = new Date(iso);
    },
  };
}

/** A fresh in-memory server on a fixed clock and a real MCP client connected to it (user "ana"). */
export async function connectSprint(options: ConnectOptions & { at?: string } = {}) {
  const database = openSprintDatabase(':memory:', migrations);
  const time = clock(options.at ?? '2026-03-02T09:00:00Z');
  const definition = createSprintServer({
    store: new SqliteSprintStore(() => database),
    now: time.now,
    close: () => database.close(),
  });
  const client = await connect(definition, { user: 'ana', ...options });
  return { client, definition, database, time };
}

export type SprintClient = Awaited<ReturnType<typeof connectSprint>>['client'];

export interface SprintOut {
  key: string;
  status: string;
  version: number;
}
export interface StoryOut {
  key: string;
  version: number;
  sprint: string | null;
  status: string;
  points: number | null;
}

export const createSprint = (client: SprintClient, args: Record<string, unknown> = {}) =>
  callOk<SprintOut>(client, 'create_sprint', {
    name: 'Sprint',
    start_date: '2026-03-02',
    end_date: '2026-03-06',
    ...args,
  });

export const createStory = (client: SprintClient, args: Record<string, unknown> = {}) =>
  callOk<StoryOut>(client, 'create_story', { title: 'Story', ...args });
