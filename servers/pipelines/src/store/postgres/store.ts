/** The PostgreSQL store: the same interface as the SQLite one, over a pool, one transaction per write. */
import { deflateSync, inflateSync } from 'node:zlib';
import { notifyChanges, pgTransaction, watchPostgres } from '@shipyard/db';
import { flipRate } from '../../domain/flaky.js';
import type { TestResult } from '../../domain/junit.js';
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
import type { PipelinesPgDatabase } from './open.js';
import { type Query, rows } from './query.js';
import { FLAKY_JOBS, INSERT_RESULTS } from './sql.js';

/**
 * Transaction-scoped locks of the writes that decide on what they read: a repo's reports (one report per
 * artifact file; tests and their tallies are shared by the repo's reports), and the log cache (its size).
 */
const REPORTS_LOCK = `SELECT pg_advisory_xact_lock(hashtext('shipyard.pipelines.reports'), hashtext($1))`;
const LOG_CACHE_LOCK = `SELECT pg_advisory_xact_lock(hashtext('shipyard.pipelines.logs'))`;

const byId = <T extends { id: number }>(list: readonly T[]) => [...list].sort((a, b) => a.id - b.id);

/** PipelinesStore on PostgreSQL (pg): all the server's SQL for that engine. */
export class PostgresPipelinesStore implements PipelinesStore {
  constructor(private readonly database: () => Promise<PipelinesPgDatabase>) {}

  private async read<T extends Row>(text: string, values: unknown[] = []): Promise<T[]> {
    const { pool } = await this.database();
    return rows<T>(pool, text, values);
  }

  /**
   * One write transaction, on one connection. The URIs it changed are announced in it, so other processes
   * and replicas hear of it when, and only if, it commits.
   */
  private async write<T>(fn: (tx: Query) => Promise<{ result: T; changed: string[] }>): Promise<T> {
    const { pool, schema } = await this.database();
    return pgTransaction(pool, async (tx) => {
      // What a write reads after its lock must be what the last writer committed, whatever the default.
      await tx.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      const { result, changed } = await fn(tx);
      await notifyChanges(tx, schema, changed);
      return result;
    });
  }

  // Every process's writes, this one's among them: resources/updated only tells a client to read again.
  watch(changed: (...uris: string[]) => void, changedAll?: () => void): () => void {
    return watchPostgres(this.database)(changed, changedAll);
  }

  async saveWorkflows(list: Workflow[]): Promise<string[]> {
    // In id order, so that two syncs of one repo lock the same rows in the same order.
    await this.write(async (tx) => {
      for (const w of byId(list)) {
        await tx.query(
          `INSERT INTO workflows (id, repo, name, path, state) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (id) DO UPDATE SET name = excluded.name, path = excluded.path, state = excluded.state`,
          [w.id, w.repo, w.name, w.path, w.state],
        );
      }
      return { result: undefined, changed: [] };
    });
    return [];
  }

  async listWorkflows(repo: string): Promise<Workflow[]> {
    return this.read<Workflow & Row>(
      'SELECT id, repo, name, path, state FROM workflows WHERE repo = $1 ORDER BY name, id',
      [repo],
    );
  }

  async findWorkflow(repo: string, key: string): Promise<Workflow | undefined> {
    const id = /^\d+$/.test(key) && key.length < 16 ? Number(key) : -1;
    const [row] = await this.read<Workflow & Row>(
      `SELECT id, repo, name, path, state FROM workflows WHERE repo = $1
       AND (id = $2 OR lower(name) = lower($3) OR path = $3 OR path LIKE $4) ORDER BY id LIMIT 1`,
      [repo, id, key, likeFileName(key)],
    );
    return row;
  }

  async saveRuns(list: Array<{ run: Run; jobs: Job[] }>): Promise<string[]> {
    const changed = list.map((item) => runUri(item.run.id));
    await this.write(async (tx) => {
      for (const { run: r, jobs } of [...list].sort((a, b) => a.run.id - b.run.id)) {
        await tx.query(
          `INSERT INTO runs (id, repo, workflow_id, workflow, run_number, branch, commit_sha, event, status,
             conclusion, attempt, created_at, started_at, finished_at, url)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
           ON CONFLICT (id) DO UPDATE SET status = excluded.status, conclusion = excluded.conclusion,
             attempt = excluded.attempt, started_at = excluded.started_at, finished_at = excluded.finished_at,
             workflow = excluded.workflow`,
          [
            r.id,
            r.repo,
            r.workflow_id,
            r.workflow,
            r.run_number,
            r.branch,
            r.commit,
            r.event,
            r.status,
            r.conclusion,
            r.attempt,
            r.created_at,
            r.started_at,
            r.finished_at,
            r.url,
          ],
        );
        for (const j of byId(jobs)) {
          await tx.query(
            `INSERT INTO jobs (id, run_id, name, status, conclusion, attempt, created_at, started_at,
               completed_at, steps)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
             ON CONFLICT (id) DO UPDATE SET status = excluded.status, conclusion = excluded.conclusion,
               started_at = excluded.started_at, completed_at = excluded.completed_at, steps = excluded.steps`,
            [
              j.id,
              j.run_id,
              j.name,
              j.status,
              j.conclusion,
              j.attempt,
              j.created_at,
              j.started_at,
              j.completed_at,
              JSON.stringify(j.steps),
            ],
          );
        }
      }
      return { result: undefined, changed };
    });
    return changed;
  }

  async listRuns(filter: RunFilter, window: Window): Promise<{ runs: Run[]; total: number }> {
    const values: unknown[] = [filter.repo];
    const where = ['repo = $1'];
    const add = (clause: string, value: unknown) => {
      values.push(value);
      where.push(clause.replace('?', `$${values.length}`));
    };
    if (filter.workflow !== undefined) add('workflow_id = ?', Number(filter.workflow));
    if (filter.branch !== undefined) add('branch = ?', filter.branch);
    if (filter.status !== undefined) {
      values.push(filter.status);
      where.push(`(status = $${values.length} OR conclusion = $${values.length})`);
    }
    // ILIKE: SQLite's LIKE ignores the case of ASCII letters too.
    if (filter.commit !== undefined) add('commit_sha ILIKE ?', likePrefix(filter.commit.toLowerCase()));
    if (filter.event !== undefined) add('event = ?', filter.event);
    const clause = where.join(' AND ');
    const [count] = await this.read<{ n: number }>(`SELECT count(*) AS n FROM runs WHERE ${clause}`, values);
    const runs = await this.read<Run & Row>(
      `SELECT ${RUN_COLUMNS} FROM runs WHERE ${clause} ORDER BY created_at DESC, id DESC
       LIMIT $${values.length + 1} OFFSET $${values.length + 2}`,
      [...values, window.limit, window.offset],
    );
    return { runs, total: count?.n ?? 0 };
  }

  async getRun(id: number): Promise<Run | undefined> {
    return (await this.read<Run & Row>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id]))[0];
  }

  async getJobs(runId: number): Promise<Job[]> {
    return (await this.read('SELECT * FROM jobs WHERE run_id = $1 ORDER BY id', [runId])).map(toJob);
  }

  async getJob(jobId: number): Promise<(Job & { repo: string }) | undefined> {
    const [row] = await this.read(
      'SELECT jobs.*, runs.repo FROM jobs JOIN runs ON runs.id = jobs.run_id WHERE jobs.id = $1',
      [jobId],
    );
    return row ? { ...toJob(row), repo: row.repo as string } : undefined;
  }

  async lastSynced(repo: string): Promise<string | undefined> {
    const [row] = await this.read<{ last_updated: string }>(
      'SELECT last_updated FROM sync_state WHERE repo = $1',
      [repo],
    );
    return row?.last_updated;
  }

  async markSynced(repo: string, at: string): Promise<void> {
    await this.read(
      `INSERT INTO sync_state (repo, last_updated) VALUES ($1, $2)
       ON CONFLICT (repo) DO UPDATE SET last_updated = greatest(sync_state.last_updated, excluded.last_updated)`,
      [repo, at],
    );
  }

  async completeRunIds(prefix: string): Promise<string[]> {
    return (
      await this.read<{ id: number }>(
        'SELECT id FROM runs WHERE id::text LIKE $1 ORDER BY created_at DESC LIMIT 100',
        [likePrefix(prefix.replace(/\D/g, ''))],
      )
    ).map((row) => String(row.id));
  }

  async completeJobIds(runId: number, prefix: string): Promise<string[]> {
    return (
      await this.read<{ id: number }>(
        'SELECT id FROM jobs WHERE run_id = $1 AND id::text LIKE $2 ORDER BY id LIMIT 100',
        [runId, likePrefix(prefix.replace(/\D/g, ''))],
      )
    ).map((row) => String(row.id));
  }

  async saveLog(log: CachedLog, index: LogIndex, capBytes: number): Promise<void> {
    const data = deflateSync(Buffer.from(log.lines.join('\n')));
    const { job_id: _job, ...errors } = index;
    await this.write(async (tx) => {
      // The cache's size decides what is evicted: one write at a time.
      await tx.query(LOG_CACHE_LOCK);
      await tx.query(
        `INSERT INTO job_logs (job_id, data, bytes, total_lines, errors, cached_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (job_id) DO UPDATE SET data = excluded.data, bytes = excluded.bytes,
           total_lines = excluded.total_lines, errors = excluded.errors, cached_at = excluded.cached_at`,
        [log.job_id, data, data.length, log.lines.length, JSON.stringify(errors), new Date().toISOString()],
      );
      // Oldest first, until the cache fits its cap again (the log just cached stays, even alone over it).
      await tx.query(
        `DELETE FROM job_logs WHERE job_id IN (
           SELECT job_id FROM (
             SELECT job_id, sum(bytes) OVER (ORDER BY cached_at DESC, job_id DESC) AS kept
             FROM job_logs WHERE job_id <> $1
           ) newest WHERE kept + $2 > $3
         )`,
        [log.job_id, data.length, capBytes],
      );
      return { result: undefined, changed: [] };
    });
  }

  async getLog(jobId: number): Promise<CachedLog | undefined> {
    const [row] = await this.read<{ data: Buffer }>('SELECT data FROM job_logs WHERE job_id = $1', [jobId]);
    if (!row) return undefined;
    const text = inflateSync(row.data).toString('utf8');
    return { job_id: jobId, lines: text === '' ? [] : text.split('\n') };
  }

  async getLogIndex(jobId: number): Promise<LogIndex | undefined> {
    const [row] = await this.read<{ errors: string }>('SELECT errors FROM job_logs WHERE job_id = $1', [
      jobId,
    ]);
    return row ? { job_id: jobId, ...JSON.parse(row.errors) } : undefined;
  }

  async hasLog(jobId: number): Promise<boolean> {
    return (await this.read('SELECT 1 FROM job_logs WHERE job_id = $1', [jobId])).length > 0;
  }

  async saveReport(report: ReportInput): Promise<{ id: number; changed: string[]; stored: boolean }> {
    const failures = report.results.filter((r) => r.status === 'failed').length;
    const changed = [FLAKY_URI];
    if (report.run_id !== null) changed.push(runUri(report.run_id));
    return this.write<{ id: number; changed: string[]; stored: boolean }>(async (tx) => {
      await tx.query(REPORTS_LOCK, [report.repo]);
      if (report.once) {
        const [stored] = await rows<{ id: number }>(
          tx,
          'SELECT id FROM reports WHERE repo = $1 AND source = $2 ORDER BY id LIMIT 1',
          [report.repo, report.source],
        );
        if (stored) return { result: { id: stored.id, changed: [], stored: false }, changed: [] };
      }
      const [inserted] = await rows<{ id: number }>(
        tx,
        `INSERT INTO reports (repo, source, run_id, commit_sha, ingested_at, tests, failures)
         VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
        [
          report.repo,
          report.source,
          report.run_id,
          report.commit,
          new Date().toISOString(),
          report.results.length,
          failures,
        ],
      );
      const reportId = (inserted as { id: number }).id;
      // One statement: results keep the report's order (their ids are taken in it, under the repo's lock).
      if (report.results.length > 0) {
        await tx.query(INSERT_RESULTS, [
          report.results.map((r) => r.suite),
          report.results.map((r) => r.name),
          report.results.map((r) => r.status),
          report.results.map((r) => r.duration_ms),
          report.results.map((r) => r.message),
          report.repo,
          reportId,
          report.run_id,
          report.commit,
          report.seen_at,
        ]);
      }
      return { result: { id: reportId, changed, stored: true }, changed };
    });
  }

  async hasReport(repo: string, source: string): Promise<boolean> {
    return (
      (await this.read('SELECT 1 FROM reports WHERE repo = $1 AND source = $2', [repo, source])).length > 0
    );
  }

  async failedTests(runId: number): Promise<TestResult[]> {
    return this.read<TestResult & Row>(
      `SELECT tests.suite, tests.name, r.status, r.duration_ms, r.message FROM test_results r
       JOIN tests ON tests.id = r.test_id WHERE r.run_id = $1 AND r.status = 'failed' ORDER BY r.id`,
      [runId],
    );
  }

  async flakyTests(
    repo: string,
    since: string | undefined,
    window: Window,
  ): Promise<{ tests: FlakyTest[]; total: number }> {
    const found = await this.read<Omit<FlakyTest, 'flip_rate'> & Row>(
      `SELECT t.suite, t.name, t.runs_seen, t.commits_seen, count(*) AS flaky_commits,
         max(tc.flaky_at) AS last_flaky, t.last_seen
       FROM test_commits tc JOIN tests t ON t.id = tc.test_id
       WHERE tc.flaky = 1 AND t.repo = $1 AND tc.last_seen >= $2
       GROUP BY t.id`,
      [repo, since ?? ''],
    );
    const tests = found
      .map((row) => ({ ...row, flip_rate: flipRate(row.flaky_commits, row.commits_seen) }))
      .sort(
        (a, b) =>
          b.flip_rate - a.flip_rate || b.flaky_commits - a.flaky_commits || (a.name < b.name ? -1 : 1),
      );
    return { tests: tests.slice(window.offset, window.offset + window.limit), total: tests.length };
  }

  async flakyJobs(repo: string, since: string | undefined, limit: number): Promise<FlakyJob[]> {
    // Per job name and commit: the first failure and the last success, over attempts and reruns.
    const found = await this.read<Omit<FlakyJob, 'flip_rate'> & Row>(FLAKY_JOBS, [repo, since ?? '']);
    return found
      .map((row) => ({ ...row, flip_rate: flipRate(row.flaky_commits, row.commits_seen) }))
      .sort((a, b) => b.flip_rate - a.flip_rate)
      .slice(0, limit);
  }

  async durations(workflowId: number, job: string | undefined, from: string) {
    const ms = (end: string, start: string) =>
      `round(extract(epoch FROM (${end}::timestamptz - ${start}::timestamptz)) * 1000)::int8 AS duration_ms`;
    if (job === undefined) {
      return this.read<{ started_at: string; duration_ms: number }>(
        `SELECT started_at, ${ms('finished_at', 'started_at')}
         FROM runs WHERE workflow_id = $1 AND conclusion = 'success' AND started_at >= $2 AND finished_at IS NOT NULL
         ORDER BY started_at`,
        [workflowId, from],
      );
    }
    return this.read<{ started_at: string; duration_ms: number }>(
      `SELECT j.started_at, ${ms('j.completed_at', 'j.started_at')}
       FROM jobs j JOIN runs r ON r.id = j.run_id
       WHERE r.workflow_id = $1 AND j.name = $2 AND j.conclusion = 'success' AND j.started_at >= $3
         AND j.completed_at IS NOT NULL
       ORDER BY j.started_at`,
      [workflowId, job, from],
    );
  }
}
