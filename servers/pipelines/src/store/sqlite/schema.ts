import { sql } from 'drizzle-orm';
import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const workflows = sqliteTable(
  'workflows',
  {
    id: integer('id').primaryKey(),
    repo: text('repo').notNull(),
    name: text('name').notNull(),
    path: text('path').notNull(),
    state: text('state').notNull(),
  },
  (t) => [index('workflows_repo').on(t.repo)],
);

export const runs = sqliteTable(
  'runs',
  {
    id: integer('id').primaryKey(),
    repo: text('repo').notNull(),
    workflowId: integer('workflow_id').notNull(),
    workflow: text('workflow').notNull(),
    runNumber: integer('run_number').notNull(),
    branch: text('branch'),
    commit: text('commit_sha').notNull(),
    event: text('event').notNull(),
    status: text('status').notNull(),
    conclusion: text('conclusion'),
    attempt: integer('attempt').notNull().default(1),
    createdAt: text('created_at').notNull(),
    startedAt: text('started_at'),
    finishedAt: text('finished_at'),
    url: text('url').notNull().default(''),
  },
  (t) => [
    index('runs_repo_created').on(t.repo, t.createdAt),
    index('runs_workflow_created').on(t.workflowId, t.createdAt),
    index('runs_commit').on(t.commit),
  ],
);

export const jobs = sqliteTable(
  'jobs',
  {
    id: integer('id').primaryKey(),
    runId: integer('run_id').notNull(),
    name: text('name').notNull(),
    status: text('status').notNull(),
    conclusion: text('conclusion'),
    attempt: integer('attempt').notNull().default(1),
    createdAt: text('created_at'),
    startedAt: text('started_at'),
    completedAt: text('completed_at'),
    /** The steps as JSON: they are read and written with their job. */
    steps: text('steps').notNull().default('[]'),
  },
  (t) => [index('jobs_run').on(t.runId)],
);

export const jobLogs = sqliteTable(
  'job_logs',
  {
    jobId: integer('job_id').primaryKey(),
    /** The clean lines joined by newlines, deflated. */
    data: blob('data', { mode: 'buffer' }).notNull(),
    bytes: integer('bytes').notNull(),
    totalLines: integer('total_lines').notNull(),
    /** The error index (LogIndex without job_id) as JSON. */
    errors: text('errors').notNull(),
    cachedAt: text('cached_at').notNull(),
  },
  (t) => [index('job_logs_cached').on(t.cachedAt)],
);

export const reports = sqliteTable(
  'reports',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    repo: text('repo').notNull(),
    source: text('source').notNull(),
    runId: integer('run_id'),
    commit: text('commit_sha'),
    ingestedAt: text('ingested_at').notNull(),
    tests: integer('tests').notNull(),
    failures: integer('failures').notNull(),
  },
  (t) => [index('reports_source').on(t.repo, t.source)],
);

export const tests = sqliteTable(
  'tests',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    repo: text('repo').notNull(),
    suite: text('suite').notNull(),
    name: text('name').notNull(),
    runsSeen: integer('runs_seen').notNull().default(0),
    commitsSeen: integer('commits_seen').notNull().default(0),
    lastSeen: text('last_seen').notNull().default(''),
  },
  (t) => [uniqueIndex('tests_key').on(t.repo, t.suite, t.name)],
);

export const testResults = sqliteTable(
  'test_results',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    testId: integer('test_id').notNull(),
    reportId: integer('report_id').notNull(),
    runId: integer('run_id'),
    commit: text('commit_sha'),
    status: text('status').notNull(),
    durationMs: integer('duration_ms').notNull(),
    message: text('message').notNull().default(''),
    seenAt: text('seen_at').notNull(),
  },
  (t) => [index('test_results_run').on(t.runId, t.status), index('test_results_test').on(t.testId)],
);

/** Per test and commit: kept by triggers on test_results (see drizzle/0001_flaky_triggers.sql). */
export const testCommits = sqliteTable(
  'test_commits',
  {
    testId: integer('test_id').notNull(),
    commit: text('commit_sha').notNull(),
    runs: integer('runs').notNull().default(0),
    firstFailAt: text('first_fail_at'),
    lastPassAt: text('last_pass_at'),
    flaky: integer('flaky').notNull().default(0),
    flakyAt: text('flaky_at'),
    lastSeen: text('last_seen').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.testId, t.commit] }),
    index('test_commits_flaky').on(t.testId, t.lastSeen).where(sql`flaky = 1`),
  ],
);

export const syncState = sqliteTable('sync_state', {
  repo: text('repo').primaryKey(),
  lastUpdated: text('last_updated').notNull(),
});

export const schema = { workflows, runs, jobs, jobLogs, reports, tests, testResults, testCommits, syncState };
