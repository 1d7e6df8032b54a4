import { deflateSync, inflateSync } from 'node:zlib';
import { recordChanges, transaction, watchChanges } from '@shipyard/db';
import type Database from 'better-sqlite3';
import { flipRate } from '../../domain/flaky.js';
import type { TestResult, TestStatus } from '../../domain/junit.js';
import {
  type CachedLog,
  FLAKY_URI,
  type FlakyJob,
  type FlakyTest,
  type Job,
  type LogIndex,
  type ReportInput,
  type Run,
  type RunFilter,
  runUri,
  type Workflow,
} from '../../domain/model.js';
import { likeFileName, likePrefix, type Row, RUN_COLUMNS, toJob } from '../rows.js';
import type { PipelinesStore, Window } from '../types.js';
import type { PipelinesDatabase } from './open.js';

/** PipelinesStore on SQLite (better-sqlite3): all the server's SQL. */
export class SqlitePipelinesStore implements PipelinesStore {
  private readonly statements = new Map<string, Database.Statement>();

  constructor(private readonly database: () => PipelinesDatabase) {}

  private get sqlite(): Database.Database {
    return this.database().sqlite;
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.sqlite.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  private write<T>(fn: () => T): T {
    return transaction(this.database(), fn, { behavior: 'immediate' });
  }

  watch(changed: (...uris: string[]) => void): () => void {
    return watchChanges(() => this.database(), changed);
  }

  async saveWorkflows(list: Workflow[]): Promise<string[]> {
    const upsert = this.sql(
      `INSERT INTO workflows (id, repo, name, path, state) VALUES (@id, @repo, @name, @path, @state)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, path = excluded.path, state = excluded.state`,
    );
    this.write(() => {
      for (const workflow of list) upsert.run(workflow);
    });
    return [];
  }

  async listWorkflows(repo: string): Promise<Workflow[]> {
    return this.sql('SELECT id, repo, name, path, state FROM workflows WHERE repo = ? ORDER BY name, id').all(
      repo,
    ) as Workflow[];
  }

  async findWorkflow(repo: string, key: string): Promise<Workflow | undefined> {
    const id = /^\d+$/.test(key) ? Number(key) : -1;
    return this.sql(
      `SELECT id, repo, name, path, state FROM workflows WHERE repo = ?
       AND (id = ? OR name = ? COLLATE NOCASE OR path = ? OR path LIKE ? ESCAPE '\\') ORDER BY id LIMIT 1`,
    ).get(repo, id, key, key, likeFileName(key)) as Workflow | undefined;
  }

  async saveRuns(list: Array<{ run: Run; jobs: Job[] }>): Promise<string[]> {
    const run = this.sql(
      `INSERT INTO runs (id, repo, workflow_id, workflow, run_number, branch, commit_sha, event, status, conclusion,
         attempt, created_at, started_at, finished_at, url)
       VALUES (@id, @repo, @workflow_id, @workflow, @run_number, @branch, @commit, @event, @status, @conclusion,
         @attempt, @created_at, @started_at, @finished_at, @url)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, conclusion = excluded.conclusion,
         attempt = excluded.attempt, started_at = excluded.started_at, finished_at = excluded.finished_at,
         workflow = excluded.workflow`,
    );
    const job = this.sql(
      `INSERT INTO jobs (id, run_id, name, status, conclusion, attempt, created_at, started_at, completed_at, steps)
       VALUES (@id, @run_id, @name, @status, @conclusion, @attempt, @created_at, @started_at, @completed_at, @steps)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, conclusion = excluded.conclusion,
         started_at = excluded.started_at, completed_at = excluded.completed_at, steps = excluded.steps`,
    );
    const changed = list.map((item) => runUri(item.run.id));
    this.write(() => {
      for (const item of list) {
        run.run(item.run);
        for (const j of item.jobs) job.run({ ...j, steps: JSON.stringify(j.steps) });
      }
      recordChanges(this.database(), changed);
    });
    return changed;
  }

  async listRuns(filter: RunFilter, window: Window): Promise<{ runs: Run[]; total: number }> {
    const where = ['repo = @repo'];
    if (filter.workflow !== undefined) where.push('workflow_id = @workflow');
    if (filter.branch !== undefined) where.push('branch = @branch');
    if (filter.status !== undefined) where.push('(status = @status OR conclusion = @status)');
    if (filter.commit !== undefined) where.push('commit_sha LIKE @commit');
    if (filter.event !== undefined) where.push('event = @event');
    const params = {
      ...filter,
      workflow: filter.workflow === undefined ? undefined : Number(filter.workflow),
      commit: filter.commit === undefined ? undefined : likePrefix(filter.commit.toLowerCase()),
    };
    const defined = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
    const clause = where.join(' AND ');
    const total = (this.sql(`SELECT count(*) AS n FROM runs WHERE ${clause}`).get(defined) as { n: number })
      .n;
    const runs = this.sql(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE ${clause} ORDER BY created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
    ).all({ ...defined, limit: window.limit, offset: window.offset }) as Run[];
    return { runs, total };
  }

  async getRun(id: number): Promise<Run | undefined> {
    return this.sql(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = ?`).get(id) as Run | undefined;
  }

  async getJobs(runId: number): Promise<Job[]> {
    return (this.sql('SELECT * FROM jobs WHERE run_id = ? ORDER BY id').all(runId) as Row[]).map(toJob);
  }

  async getJob(jobId: number): Promise<(Job & { repo: string }) | undefined> {
    const row = this.sql(
      'SELECT jobs.*, runs.repo FROM jobs JOIN runs ON runs.id = jobs.run_id WHERE jobs.id = ?',
    ).get(jobId) as Row | undefined;
    return row ? { ...toJob(row), repo: row.repo as string } : undefined;
  }

  async lastSynced(repo: string): Promise<string | undefined> {
    const row = this.sql('SELECT last_updated FROM sync_state WHERE repo = ?').get(repo) as
      | { last_updated: string }
      | undefined;
    return row?.last_updated;
  }

  async markSynced(repo: string, at: string): Promise<void> {
    this.sql(
      `INSERT INTO sync_state (repo, last_updated) VALUES (?, ?)
       ON CONFLICT (repo) DO UPDATE SET last_updated = max(last_updated, excluded.last_updated)`,
    ).run(repo, at);
  }

  async completeRunIds(prefix: string): Promise<string[]> {
    return (
      this.sql(
        `SELECT id FROM runs WHERE CAST(id AS TEXT) LIKE ? ESCAPE '\\' ORDER BY created_at DESC LIMIT 100`,
      ).all(likePrefix(prefix.replace(/\D/g, ''))) as Array<{ id: number }>
    ).map((row) => String(row.id));
  }

  async completeJobIds(runId: number, prefix: string): Promise<string[]> {
    return (
      this.sql(
        `SELECT id FROM jobs WHERE run_id = ? AND CAST(id AS TEXT) LIKE ? ESCAPE '\\' ORDER BY id LIMIT 100`,
      ).all(runId, likePrefix(prefix.replace(/\D/g, ''))) as Array<{ id: number }>
    ).map((row) => String(row.id));
  }

  async saveLog(log: CachedLog, index: LogIndex, capBytes: number): Promise<void> {
    const data = deflateSync(Buffer.from(log.lines.join('\n')));
    const { job_id: _job, ...errors } = index;
    this.write(() => {
      this.sql(
        `INSERT INTO job_logs (job_id, data, bytes, total_lines, errors, cached_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (job_id) DO UPDATE SET data = excluded.data, bytes = excluded.bytes,
           total_lines = excluded.total_lines, errors = excluded.errors, cached_at = excluded.cached_at`,
      ).run(
        log.job_id,
        data,
        data.length,
        log.lines.length,
        JSON.stringify(errors),
        new Date().toISOString(),
      );
      // Oldest first, until the cache fits its cap again (the log just cached stays, even alone over it).
      let total = (this.sql('SELECT coalesce(sum(bytes), 0) AS n FROM job_logs').get() as { n: number }).n;
      if (total <= capBytes) return;
      const oldest = this.sql(
        'SELECT job_id, bytes FROM job_logs WHERE job_id != ? ORDER BY cached_at, job_id',
      ).all(log.job_id) as Array<{ job_id: number; bytes: number }>;
      const remove = this.sql('DELETE FROM job_logs WHERE job_id = ?');
      for (const row of oldest) {
        if (total <= capBytes) break;
        remove.run(row.job_id);
        total -= row.bytes;
      }
    });
  }

  async getLog(jobId: number): Promise<CachedLog | undefined> {
    const row = this.sql('SELECT data FROM job_logs WHERE job_id = ?').get(jobId) as
      | { data: Buffer }
      | undefined;
    if (!row) return undefined;
    const text = inflateSync(row.data).toString('utf8');
    return { job_id: jobId, lines: text === '' ? [] : text.split('\n') };
  }

  async getLogIndex(jobId: number): Promise<LogIndex | undefined> {
    const row = this.sql('SELECT errors FROM job_logs WHERE job_id = ?').get(jobId) as
      | { errors: string }
      | undefined;
    return row ? { job_id: jobId, ...JSON.parse(row.errors) } : undefined;
  }

  async hasLog(jobId: number): Promise<boolean> {
    return this.sql('SELECT 1 FROM job_logs WHERE job_id = ?').get(jobId) !== undefined;
  }

  async saveReport(report: ReportInput): Promise<{ id: number; changed: string[]; stored: boolean }> {
    const failures = report.results.filter((r) => r.status === 'failed').length;
    const changed = [FLAKY_URI];
    if (report.run_id !== null) changed.push(runUri(report.run_id));
    return this.write(() => {
      if (report.once) {
        const stored = this.sql(
          'SELECT id FROM reports WHERE repo = ? AND source = ? ORDER BY id LIMIT 1',
        ).get(report.repo, report.source) as { id: number } | undefined;
        if (stored) return { id: stored.id, changed: [], stored: false };
      }
      const reportId = Number(
        this.sql(
          `INSERT INTO reports (repo, source, run_id, commit_sha, ingested_at, tests, failures)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          report.repo,
          report.source,
          report.run_id,
          report.commit,
          new Date().toISOString(),
          report.results.length,
          failures,
        ).lastInsertRowid,
      );
      const test = this.sql(
        `INSERT INTO tests (repo, suite, name) VALUES (?, ?, ?)
         ON CONFLICT (repo, suite, name) DO UPDATE SET repo = excluded.repo RETURNING id`,
      );
      const result = this.sql(
        `INSERT INTO test_results (test_id, report_id, run_id, commit_sha, status, duration_ms, message, seen_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const r of report.results) {
        const testId = (test.get(report.repo, r.suite, r.name) as { id: number }).id;
        result.run(
          testId,
          reportId,
          report.run_id,
          report.commit,
          r.status,
          r.duration_ms,
          r.message,
          report.seen_at,
        );
      }
      recordChanges(this.database(), changed);
      return { id: reportId, changed, stored: true };
    });
  }

  async hasReport(repo: string, source: string): Promise<boolean> {
    return this.sql('SELECT 1 FROM reports WHERE repo = ? AND source = ?').get(repo, source) !== undefined;
  }

  async failedTests(runId: number): Promise<TestResult[]> {
    return this.sql(
      `SELECT tests.suite, tests.name, r.status, r.duration_ms, r.message FROM test_results r
       JOIN tests ON tests.id = r.test_id WHERE r.run_id = ? AND r.status = 'failed' ORDER BY r.id`,
    ).all(runId) as Array<TestResult & { status: TestStatus }>;
  }

  async flakyTests(
    repo: string,
    since: string | undefined,
    window: Window,
  ): Promise<{ tests: FlakyTest[]; total: number }> {
    const rows = this.sql(
      `SELECT t.suite, t.name, t.runs_seen, t.commits_seen, count(*) AS flaky_commits,
         max(tc.flaky_at) AS last_flaky, t.last_seen
       FROM test_commits tc JOIN tests t ON t.id = tc.test_id
       WHERE tc.flaky = 1 AND t.repo = ? AND tc.last_seen >= ?
       GROUP BY tc.test_id`,
    ).all(repo, since ?? '') as Array<Omit<FlakyTest, 'flip_rate'>>;
    const tests = rows
      .map((row) => ({ ...row, flip_rate: flipRate(row.flaky_commits, row.commits_seen) }))
      .sort(
        (a, b) =>
          b.flip_rate - a.flip_rate || b.flaky_commits - a.flaky_commits || (a.name < b.name ? -1 : 1),
      );
    return { tests: tests.slice(window.offset, window.offset + window.limit), total: tests.length };
  }

  async flakyJobs(repo: string, since: string | undefined, limit: number): Promise<FlakyJob[]> {
    // Per job name and commit: the first failure and the last success, over attempts and reruns.
    const rows = this.sql(
      `SELECT workflow, job, count(*) AS commits_seen,
         sum(first_fail IS NOT NULL AND last_pass > first_fail) AS flaky_commits,
         max(CASE WHEN last_pass > first_fail THEN last_pass END) AS last_flaky
       FROM (
         SELECT r.workflow, j.name AS job, r.commit_sha,
           min(CASE WHEN j.conclusion = 'failure' THEN coalesce(j.completed_at, r.created_at) END) AS first_fail,
           max(CASE WHEN j.conclusion = 'success' THEN coalesce(j.completed_at, r.created_at) END) AS last_pass
         FROM jobs j JOIN runs r ON r.id = j.run_id
         WHERE r.repo = ? AND r.created_at >= ?
         GROUP BY r.workflow, j.name, r.commit_sha
       ) GROUP BY workflow, job HAVING flaky_commits > 0`,
    ).all(repo, since ?? '') as Array<Omit<FlakyJob, 'flip_rate'>>;
    return rows
      .map((row) => ({ ...row, flip_rate: flipRate(row.flaky_commits, row.commits_seen) }))
      .sort((a, b) => b.flip_rate - a.flip_rate)
      .slice(0, limit);
  }

  async durations(workflowId: number, job: string | undefined, from: string) {
    if (job === undefined) {
      return this.sql(
        `SELECT started_at, CAST(round((julianday(finished_at) - julianday(started_at)) * 86400000) AS INTEGER) AS duration_ms
         FROM runs WHERE workflow_id = ? AND conclusion = 'success' AND started_at >= ? AND finished_at IS NOT NULL
         ORDER BY started_at`,
      ).all(workflowId, from) as Array<{ started_at: string; duration_ms: number }>;
    }
    return this.sql(
      `SELECT j.started_at, CAST(round((julianday(j.completed_at) - julianday(j.started_at)) * 86400000) AS INTEGER) AS duration_ms
       FROM jobs j JOIN runs r ON r.id = j.run_id
       WHERE r.workflow_id = ? AND j.name = ? AND j.conclusion = 'success' AND j.started_at >= ? AND j.completed_at IS NOT NULL
       ORDER BY j.started_at`,
    ).all(workflowId, job, from) as Array<{ started_at: string; duration_ms: number }>;
  }
}
