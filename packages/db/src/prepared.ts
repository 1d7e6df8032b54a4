/**
 * drizzle builds the SQL text of a query builder on every run. For a hot query, build it once per
 * database with `.prepare()` and placeholders, and reuse it: `preparedOnce(db, buildQueries)` returns what
 * `buildQueries(db)` returned the first time for this database. `build` must be one function (declared
 * once at module level), since it is the cache key. Prepared queries run on the database's connection,
 * so they also run inside a transaction on it.
 */
const cache = new WeakMap<object, Map<(db: never) => unknown, unknown>>();

export function preparedOnce<TDb extends object, T>(db: TDb, build: (db: TDb) => T): T {
  let built = cache.get(db);
  if (!built) {
    built = new Map();
    cache.set(db, built);
  }
  if (!built.has(build)) built.set(build, build(db));
  return built.get(build) as T;
}
