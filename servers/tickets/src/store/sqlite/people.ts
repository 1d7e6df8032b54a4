import { sql } from 'drizzle-orm';
import { OPEN_STATUSES } from '../../domain/model.js';
import type { PeopleData } from '../../domain/people.js';
import { sqlList, type Tx } from './model.js';

/** Every name a ticket or comment has used (the people table), in name order. */
export const knownNames = (db: Tx): string[] =>
  db.all<{ name: string }>(sql`SELECT name FROM people ORDER BY name`).map((row) => row.name);

/** The known names and the open tickets by assignee as stored (call inside one snapshot). */
export function peopleData(db: Tx): PeopleData {
  const open = db.all<{ assignee: string; open: number }>(
    sql`SELECT assignee, count(*) AS open FROM tickets
        WHERE status IN (${sqlList(OPEN_STATUSES)}) AND assignee IS NOT NULL GROUP BY assignee`,
  );
  return { names: knownNames(db), open };
}
