// GitHubApi through @octokit/rest with the throttling and retry plugins, loaded on first use.
import type { Logger } from '@shipyard/core';
import type { Job, Run, Step, Workflow } from '../domain/model.js';
import { githubError } from './errors.js';
import type { Artifact, GitHubApi } from './types.js';

export interface GitHubOptions {
  /** Undefined: anonymous (public repos, a low rate limit). */
  token: string | undefined;
  /** GITHUB_API_URL, for GitHub Enterprise; default https://api.github.com. */
  baseUrl: string | undefined;
  log: Logger;
  /** Base of the retry back-off in milliseconds (tests shorten it). */
  retryDelayMs?: number;
  /** Retries of a failed request (5xx, network) before giving up. */
  retries?: number;
}

type Octokit = InstanceType<typeof import('@octokit/rest').Octokit>;
// biome-ignore lint/suspicious/noExplicitAny: GitHub's bodies, read field by field into typed rows.
type AnyRecord = Record<string, any>;

const split = (repo: string) => {
  const [owner, name] = repo.split('/') as [string, string];
  return { owner, repo: name };
};

/** A GitHub time (with a zone offset or Z) as ISO in UTC, so stored times compare as text. */
const iso = (value: unknown): string | null =>
  typeof value === 'string' && Number.isFinite(Date.parse(value)) ? new Date(value).toISOString() : null;

const toRun = (repo: string, r: AnyRecord): Run => ({
  id: r.id,
  repo,
  workflow_id: r.workflow_id,
  workflow: r.name ?? String(r.workflow_id),
  run_number: r.run_number,
  branch: r.head_branch ?? null,
  commit: r.head_sha,
  event: r.event,
  status: r.status ?? 'unknown',
  conclusion: r.conclusion ?? null,
  attempt: r.run_attempt ?? 1,
  created_at: iso(r.created_at) ?? new Date(0).toISOString(),
  started_at: iso(r.run_started_at) ?? iso(r.created_at),
  finished_at: r.status === 'completed' ? iso(r.updated_at) : null,
  url: r.html_url ?? '',
});

const toStep = (s: AnyRecord): Step => ({
  number: s.number,
  name: s.name,
  status: s.status,
  conclusion: s.conclusion ?? null,
  started_at: iso(s.started_at),
  completed_at: iso(s.completed_at),
});

const toJob = (j: AnyRecord): Job => ({
  id: j.id,
  run_id: j.run_id,
  name: j.name,
  status: j.status,
  conclusion: j.conclusion ?? null,
  attempt: j.run_attempt ?? 1,
  created_at: iso(j.created_at),
  started_at: iso(j.started_at),
  completed_at: iso(j.completed_at),
  steps: (j.steps ?? []).map(toStep),
});

/** A GitHubApi whose octokit is built, and its packages loaded, at the first request. */
export function octokitApi(options: GitHubOptions): GitHubApi {
  let client: Promise<Octokit> | undefined;
  const octokit = () => {
    client ??= (async () => {
      const [{ Octokit }, { throttling }, { retry }] = await Promise.all([
        import('@octokit/rest'),
        import('@octokit/plugin-throttling'),
        import('@octokit/plugin-retry'),
      ]);
      const Client = Octokit.plugin(throttling, retry);
      const quiet = () => {};
      return new Client({
        ...(options.token ? { auth: options.token } : {}),
        ...(options.baseUrl ? { baseUrl: options.baseUrl.replace(/\/+$/, '') } : {}),
        userAgent: 'shipyard-pipelines',
        // Its warnings name endpoints, never the token; debug and info would log every request.
        log: {
          debug: quiet,
          info: quiet,
          warn: (m: string) => options.log.warn(m),
          error: (m: string) => options.log.warn(m),
        },
        retry: {
          retries: options.retries ?? 2,
          retryAfterBaseValue: options.retryDelayMs ?? 1000,
          doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451],
        },
        throttle: {
          // A limit that resets within seconds is waited for once; a longer one is the caller's to wait for.
          onRateLimit: (after: number, _o: unknown, _c: unknown, count: number) => after <= 2 && count === 0,
          onSecondaryRateLimit: (after: number, _o: unknown, _c: unknown, count: number) =>
            after <= 2 && count === 0,
        },
      });
    })();
    return client;
  };
  const call = async <T>(what: string, fn: (o: Octokit) => Promise<T>): Promise<T> => {
    const o = await octokit();
    try {
      return await fn(o);
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error;
      throw githubError(error, what);
    }
  };
  const request = (signal: AbortSignal | undefined) => (signal ? { request: { signal } } : {});

  return {
    listWorkflows: (repo, signal) =>
      call(`listing the workflows of ${repo}`, async (o) => {
        const all = await o.paginate(o.rest.actions.listRepoWorkflows, {
          ...split(repo),
          per_page: 100,
          ...request(signal),
        });
        return all.map(
          (w: AnyRecord): Workflow => ({ id: w.id, repo, name: w.name, path: w.path, state: w.state }),
        );
      }),
    runs: (repo, signal) => ({
      async *[Symbol.asyncIterator]() {
        const o = await octokit();
        const pages = o.paginate.iterator(o.rest.actions.listWorkflowRunsForRepo, {
          ...split(repo),
          per_page: 100,
          ...request(signal),
        });
        const it = pages[Symbol.asyncIterator]();
        while (true) {
          let next: IteratorResult<{ data: unknown }>;
          try {
            next = await it.next();
          } catch (error) {
            if ((error as Error)?.name === 'AbortError') throw error;
            throw githubError(error, `listing the runs of ${repo}`);
          }
          if (next.done) return;
          const data = next.value.data as AnyRecord[] | { workflow_runs?: AnyRecord[] };
          const list = Array.isArray(data) ? data : (data.workflow_runs ?? []);
          yield list.map((r) => toRun(repo, r));
        }
      },
    }),
    listJobs: (repo, runId, signal) =>
      call(`listing the jobs of run ${runId}`, async (o) => {
        const all = await o.paginate(o.rest.actions.listJobsForWorkflowRun, {
          ...split(repo),
          run_id: runId,
          filter: 'all',
          per_page: 100,
          ...request(signal),
        });
        return (all as AnyRecord[]).map(toJob);
      }),
    jobLog: (repo, jobId, signal) =>
      call(`downloading the log of job ${jobId}`, async (o) => {
        const response = await o.rest.actions.downloadJobLogsForWorkflowRun({
          ...split(repo),
          job_id: jobId,
          ...request(signal),
        });
        const data = response.data as unknown;
        if (typeof data === 'string') return data;
        if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
        return String(data ?? '');
      }),
    listArtifacts: (repo, runId, signal) =>
      call(`listing the artifacts of run ${runId}`, async (o) => {
        const all = await o.paginate(o.rest.actions.listWorkflowRunArtifacts, {
          ...split(repo),
          run_id: runId,
          per_page: 100,
          ...request(signal),
        });
        return (all as AnyRecord[]).map(
          (a): Artifact => ({
            id: a.id,
            name: a.name,
            expired: Boolean(a.expired),
            size_in_bytes: a.size_in_bytes ?? 0,
          }),
        );
      }),
    downloadArtifact: (repo, artifactId, signal) =>
      call(`downloading artifact ${artifactId}`, async (o) => {
        const response = await o.rest.actions.downloadArtifact({
          ...split(repo),
          artifact_id: artifactId,
          archive_format: 'zip',
          ...request(signal),
        });
        const data = response.data as unknown;
        if (data instanceof ArrayBuffer) return new Uint8Array(data);
        if (data instanceof Uint8Array) return data;
        return new Uint8Array(Buffer.from(String(data), 'latin1'));
      }),
    rerun: (repo, runId, failedOnly) =>
      call(`rerunning run ${runId}`, async (o) => {
        if (failedOnly) await o.rest.actions.reRunWorkflowFailedJobs({ ...split(repo), run_id: runId });
        else await o.rest.actions.reRunWorkflow({ ...split(repo), run_id: runId });
      }),
    cancel: (repo, runId) =>
      call(`cancelling run ${runId}`, async (o) => {
        await o.rest.actions.cancelWorkflowRun({ ...split(repo), run_id: runId });
      }),
  };
}
