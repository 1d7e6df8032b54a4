/** Queries of the PostgreSQL store: 64-bit ids, counts and sums come back as numbers, as from SQLite. */
import { createRequire } from 'node:module';
import type * as Pg from 'pg';
import type { PoolClient, QueryResultRow } from 'pg';

export type Query = Pick<PoolClient, 'query'>;

const INT8 = 20;
const NUMERIC = 1700;

let types: { getTypeParser: (oid: number, format?: string) => unknown } | undefined;

/** pg's parsers, but ids (GitHub's, below 2^53), counts and sums as JS numbers. Loaded with pg, on first use. */
function numberTypes() {
  if (!types) {
    const pg = createRequire(import.meta.url)('pg') as typeof Pg;
    const parser = pg.types.getTypeParser as (oid: number, format?: string) => unknown;
    types = {
      getTypeParser: (oid, format) =>
        oid === INT8 || oid === NUMERIC ? (value: string) => Number(value) : parser(oid, format),
    };
  }
  return types;
}

/** The rows of one query. */
export async function rows<T extends QueryResultRow>(
  client: Query,
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  return (await client.query<T>({ text, values, types: numberTypes() as never })).rows;
}
