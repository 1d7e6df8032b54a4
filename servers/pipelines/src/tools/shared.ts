import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Forbidden, InvalidInput, NotFound, z } from '@shipyard/core';
import type { PipelinesDeps } from '../deps.js';
import { between } from '../domain/durations.js';
import { parseJUnit, type TestResult } from '../domain/junit.js';
import { cleanLog, excerpts, findErrorLines } from '../domain/logs.js';
import { type CachedLog, type Job, type LogIndex, logUri, type Run } from '../domain/model.js';
import { checkRepo, REPO_PATTERN } from '../domain/repo.js';

export const fields = {
  repo: z
    .string()
    .max(140)
    .regex(REPO_PATTERN, 'owner/name')
    .optional()
    .describe('owner/name; default the configured repo'),
  run: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Run id (list_runs)'),
  job: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe('Job id (get_run)'),
  workflow: z.string().min(1).max(200).describe('Workflow id, name or file (ci.yml)'),
};

/** The repo a call is about: the one given, else the configured default. */
export function repoOf(given: string | undefined, deps: PipelinesDeps): string {
  if (given !== undefined) return checkRepo(given);
  if (deps.repo) return deps.repo;
  throw new InvalidInput('No repo given and none configured', {
    hint: 'Pass repo as owner/name, or start the server with --repo (SHIPYARD_PIPELINES_REPO) or inside a clone',
  });
}

export async function runOrThrow(deps: PipelinesDeps, id: number): Promise<Run> {
  const run = await deps.store.getRun(id);
  if (!run) {
    throw new NotFound(`No run ${id} in the local store`, {
      hint: 'Call sync_runs to pull recent runs, then list_runs to find the id',
    });
  }
  return run;
}

export async function jobOrThrow(deps: PipelinesDeps, id: number): Promise<Job & { repo: string }> {
  const job = await deps.store.getJob(id);
  if (!job) {
    throw new NotFound(`No job ${id} in the local store`, {
      hint: 'get_run lists the jobs of a run with their ids',
    });
  }
  return job;
}

/** The index of a log: its error lines and excerpts around the first ones. */
export function indexLog(jobId: number, lines: string[]): LogIndex {
  const errors = findErrorLines(lines);
  return {
    job_id: jobId,
    total_lines: lines.length,
    error_lines: errors.lines,
    error_rules: errors.rules,
    error_total: errors.total,
    excerpts: excerpts(lines, errors).slice(0, 50),
  };
}

/** Fetch a job's log from GitHub, clean it and cache it with its index. */
export async function fetchLog(
  deps: PipelinesDeps,
  job: { id: number; repo: string },
  signal?: AbortSignal,
): Promise<CachedLog> {
  const raw = await deps.github.jobLog(job.repo, job.id, signal);
  const lines = cleanLog(raw);
  await deps.store.saveLog({ job_id: job.id, lines }, indexLog(job.id, lines), deps.logCacheBytes);
  return { job_id: job.id, lines };
}

/** A job's clean log: from the cache, else fetched from GitHub and cached. */
export async function logOf(deps: PipelinesDeps, jobId: number, signal?: AbortSignal): Promise<CachedLog> {
  const cached = await deps.store.getLog(jobId);
  if (cached) return cached;
  return fetchLog(deps, await jobOrThrow(deps, jobId), signal);
}

/** Where a report path may be read: the client's roots when it offers them, else --reports-dir. */
export async function allowedPlaces(deps: PipelinesDeps, roots: () => Promise<string[] | undefined>) {
  const offered = await roots();
  if (offered !== undefined) {
    return {
      from: 'the client roots',
      places: offered.filter((uri) => uri.startsWith('file:')).map((uri) => fileURLToPath(uri)),
    };
  }
  return { from: '--reports-dir', places: deps.reportsDir ? [deps.reportsDir] : [] };
}

const inside = (dir: string, file: string) => {
  const rel = relative(dir, file);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/** The real path of a report file if it lies inside one of the places (symlinks and `..` resolved first). */
export async function checkReportPath(
  path: string,
  allowed: { from: string; places: string[] },
): Promise<string> {
  const refuse = () =>
    new Forbidden(
      allowed.places.length > 0
        ? `${path} is outside the places reports may be read from (${allowed.from}): ${allowed.places.join(', ')}`
        : `No place is allowed for report files: the client offers no roots and no --reports-dir is set`,
      {
        hint:
          allowed.places.length > 0
            ? 'Pass a path inside one of them, or pass the XML as content'
            : 'Pass the XML as content, or start the server with --reports-dir',
      },
    );
  if (allowed.places.length === 0) throw refuse();
  let real: string;
  try {
    real = await realpath(resolve(allowed.places[0] as string, path));
  } catch {
    // Whether a file exists outside the allowed places is not told.
    const plain = resolve(allowed.places[0] as string, path);
    if (!allowed.places.some((place) => inside(resolve(place), plain))) throw refuse();
    throw new NotFound(`No file at ${path}`, {
      hint: 'Check the path; it is read relative to the first allowed place',
    });
  }
  for (const place of allowed.places) {
    const root = await realpath(place).catch(() => undefined);
    if (root && inside(root, real)) return real;
  }
  throw refuse();
}

/** Parse JUnit XML and store it as one report. */
export async function ingest(
  deps: PipelinesDeps,
  report: {
    repo: string;
    source: string;
    xml: string;
    commit: string | null;
    run_id: number | null;
    seen_at: string;
    once?: boolean;
  },
): Promise<{ id: number; results: TestResult[]; changed: string[]; stored: boolean }> {
  const { xml, ...fields } = report;
  const results = await parseJUnit(xml, report.source);
  const saved = await deps.store.saveReport({ ...fields, results });
  return { id: saved.id, results, changed: saved.changed, stored: saved.stored };
}

/** A run with its jobs and steps, durations in milliseconds (null while unknown). */
export async function runDetail(deps: PipelinesDeps, id: number) {
  const run = await runOrThrow(deps, id);
  const jobs = await deps.store.getJobs(id);
  const failed = await deps.store.failedTests(id);
  const { repo: _repo, ...fields } = run;
  return {
    run: {
      ...fields,
      queue_ms: between(run.created_at, run.started_at) ?? null,
      duration_ms: between(run.started_at, run.finished_at) ?? null,
    },
    jobs: await Promise.all(
      jobs.map(async (job) => ({
        id: job.id,
        name: job.name,
        status: job.status,
        conclusion: job.conclusion,
        attempt: job.attempt,
        queue_ms: between(job.created_at, job.started_at) ?? null,
        duration_ms: between(job.started_at, job.completed_at) ?? null,
        log: (await deps.store.hasLog(job.id)) ? logUri(id, job.id) : null,
        steps: job.steps.map((step) => ({
          number: step.number,
          name: step.name,
          conclusion: step.conclusion,
          duration_ms: between(step.started_at, step.completed_at) ?? null,
        })),
      })),
    ),
    failed_tests: failed.length,
  };
}

export const sinceField = z
  .string()
  .max(40)
  .refine((value) => Number.isFinite(Date.parse(value)), 'an ISO date, e.g. 2025-01-31')
  .optional()
  .describe('Only what was seen since this ISO date(time)');

/** An ISO date or time as the store compares it. */
export function isoSince(since: string | undefined): string | undefined {
  if (since === undefined) return undefined;
  const time = Date.parse(since);
  if (!Number.isFinite(time))
    throw new InvalidInput(`"${since}" is not a date`, { hint: 'Write it as 2025-01-31' });
  return new Date(time).toISOString();
}
