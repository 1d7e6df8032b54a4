/** The PostgreSQL store's longer statements. */

/**
 * A report's results ($1-$5 as arrays, in the report's order) with their tests (made on first sight) in one
 * statement: ids are taken in the report's order. $6 repo, $7 report id, $8 run id, $9 commit, $10 seen at.
 */
export const INSERT_RESULTS = `WITH given AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::text[])
       WITH ORDINALITY AS g(suite, name, status, duration_ms, message, n)
   ), known AS (
     INSERT INTO tests (repo, suite, name) SELECT DISTINCT $6, suite, name FROM given
     ON CONFLICT (repo, suite, name) DO UPDATE SET repo = excluded.repo
     RETURNING id, suite, name
   )
   INSERT INTO test_results (test_id, report_id, run_id, commit_sha, status, duration_ms, message, seen_at)
   SELECT known.id, $7, $8, $9, given.status, given.duration_ms, given.message, $10
   FROM given JOIN known ON known.suite = given.suite AND known.name = given.name
   ORDER BY given.n`;

/** Per job name of a repo ($1) since a time ($2): commits seen, and those where it failed and then passed. */
export const FLAKY_JOBS = `SELECT * FROM (
   SELECT workflow, job, count(*) AS commits_seen,
     count(*) FILTER (WHERE first_fail IS NOT NULL AND last_pass > first_fail) AS flaky_commits,
     max(CASE WHEN last_pass > first_fail THEN last_pass END) AS last_flaky
   FROM (
     SELECT r.workflow, j.name AS job, r.commit_sha,
       min(CASE WHEN j.conclusion = 'failure' THEN coalesce(j.completed_at, r.created_at) END) AS first_fail,
       max(CASE WHEN j.conclusion = 'success' THEN coalesce(j.completed_at, r.created_at) END) AS last_pass
     FROM jobs j JOIN runs r ON r.id = j.run_id
     WHERE r.repo = $1 AND r.created_at >= $2
     GROUP BY r.workflow, j.name, r.commit_sha
   ) per_commit GROUP BY workflow, job
 ) per_job WHERE flaky_commits > 0`;
