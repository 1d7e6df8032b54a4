/** Statements written with drizzle's `sql` (every value a `$n` parameter), run on the part's connection. */
import { type SQL, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Query } from './access.js';

const dialect = new PgDialect();

/** The rows of a statement. */
export async function rowsOf<T>(q: Query, statement: SQL): Promise<T[]> {
  const { sql: text, params } = dialect.sqlToQuery(statement);
  return (await q.query(text, params)).rows as T[];
}

/** The first row of a statement, or undefined. */
export const rowOf = async <T>(q: Query, statement: SQL): Promise<T | undefined> =>
  (await rowsOf<T>(q, statement))[0];

/** Bound values as the list of an `IN (…)`, each once. */
export const sqlList = (values: readonly (string | number)[]) =>
  sql.join(
    [...new Set(values)].map((value) => sql`${value}`),
    sql`, `,
  );
