import { sql } from 'drizzle-orm';
import {
  bigint,
  customType,
  index,
  integer,
  pgTable,
  primaryKey,
  serial,
  uniqueIndex,
} from 'drizzle-orm/pg-core';

/**
 * Text compared and sorted by code point, as SQLite's BINARY collation does, whatever the database's
 * collation: names, dates and times are ordered as strings.
 */
const ctext = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });
const bytea = customType<{ data: Buffer }>({ dataType: () => 'bytea' });
/** GitHub's ids pass 2^31: 64-bit, read as numbers (below 2^53). */
const id = (name: string) => bigint(name, { mode: 'number' });

/** The tables of the SQLite schema, one for one (see drizzle-postgres for the flaky-test trigger). */
export const workflows = pgTable(
  'workflows',
  {
    id: id('id').primaryKey(),
    repo: ctext('repo').notNull(),
    name: ctext('name').notNull(),
    path: ctext('path').notNull(),
    state: ctext('state').notNull(),
  },
  (t) => [index('workflows_repo').on(t.repo)],
);

export const runs = pgTable(
  'runs',
  {
    id: id('id').primaryKey(),
    repo: ctext('repo').notNull(),
    workflowId: id('workflow_id').notNull(),
    workflow: ctext('workflow').notNull(),
    runNumber: integer('run_number').notNull(),
    branch: ctext('branch'),
    commit: ctext('commit_sha').notNull(),
    event: ctext('event').notNull(),
    status: ctext('status').notNull(),
    conclusion: ctext('conclusion'),
    attempt: integer('attempt').notNull().default(1),
    createdAt: ctext('created_at').notNull(),
    startedAt: ctext('started_at'),
    finishedAt: ctext('finished_at'),
    url: ctext('url').notNull().default(''),
  },
  (t) => [
    index('runs_repo_created').on(t.repo, t.createdAt),
    index('runs_workflow_created').on(t.workflowId, t.createdAt),
    index('runs_commit').on(t.commit),
  ],
);

export const jobs = pgTable(
  'jobs',
  {
    id: id('id').primaryKey(),
    runId: id('run_id').notNull(),
    name: ctext('name').notNull(),
    status: ctext('status').notNull(),
    conclusion: ctext('conclusion'),
    attempt: integer('attempt').notNull().default(1),
    createdAt: ctext('created_at'),
    startedAt: ctext('started_at'),
    completedAt: ctext('completed_at'),
    /** The steps as JSON: they are read and written with their job. */
    steps: ctext('steps').notNull().default('[]'),
  },
  (t) => [index('jobs_run').on(t.runId)],
);

export const jobLogs = pgTable(
  'job_logs',
  {
    jobId: id('job_id').primaryKey(),
    /** The clean lines joined by newlines, deflated. */
    data: bytea('data').notNull(),
    bytes: integer('bytes').notNull(),
    totalLines: integer('total_lines').notNull(),
    /** The error index (LogIndex without job_id) as JSON. */
    errors: ctext('errors').notNull(),
    cachedAt: ctext('cached_at').notNull(),
  },
  (t) => [index('job_logs_cached').on(t.cachedAt)],
);

export const reports = pgTable(
  'reports',
  {
    id: serial('id').primaryKey(),
    repo: ctext('repo').notNull(),
    source: ctext('source').notNull(),
    runId: id('run_id'),
    commit: ctext('commit_sha'),
    ingestedAt: ctext('ingested_at').notNull(),
    tests: integer('tests').notNull(),
    failures: integer('failures').notNull(),
  },
  (t) => [index('reports_source').on(t.repo, t.source)],
);

export const tests = pgTable(
  'tests',
  {
    id: serial('id').primaryKey(),
    repo: ctext('repo').notNull(),
    suite: ctext('suite').notNull(),
    name: ctext('name').notNull(),
    runsSeen: integer('runs_seen').notNull().default(0),
    commitsSeen: integer('commits_seen').notNull().default(0),
    lastSeen: ctext('last_seen').notNull().default(''),
  },
  (t) => [uniqueIndex('tests_key').on(t.repo, t.suite, t.name)],
);

export const testResults = pgTable(
  'test_results',
  {
    id: serial('id').primaryKey(),
    testId: integer('test_id').notNull(),
    reportId: integer('report_id').notNull(),
    runId: id('run_id'),
    commit: ctext('commit_sha'),
    status: ctext('status').notNull(),
    durationMs: integer('duration_ms').notNull(),
    message: ctext('message').notNull().default(''),
    seenAt: ctext('seen_at').notNull(),
  },
  (t) => [index('test_results_run').on(t.runId, t.status), index('test_results_test').on(t.testId)],
);

/** Per test and commit: kept by a trigger on test_results (see drizzle-postgres/0000_init.sql). */
export const testCommits = pgTable(
  'test_commits',
  {
    testId: integer('test_id').notNull(),
    commit: ctext('commit_sha').notNull(),
    runs: integer('runs').notNull().default(0),
    firstFailAt: ctext('first_fail_at'),
    lastPassAt: ctext('last_pass_at'),
    flaky: integer('flaky').notNull().default(0),
    flakyAt: ctext('flaky_at'),
    lastSeen: ctext('last_seen').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.testId, t.commit] }),
    index('test_commits_flaky').on(t.testId, t.lastSeen).where(sql`flaky = 1`),
  ],
);

export const syncState = pgTable('sync_state', {
  repo: ctext('repo').primaryKey(),
  lastUpdated: ctext('last_updated').notNull(),
});

export const schema = { workflows, runs, jobs, jobLogs, reports, tests, testResults, testCommits, syncState };
