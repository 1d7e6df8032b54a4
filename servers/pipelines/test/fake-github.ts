// A local stand-in for the GitHub Actions REST API on 127.0.0.1. Bodies are GitHub's documented examples
// (@octokit/openapi) with ids, names and times set by the test; behaviour follows GitHub's docs: job logs and
// artifacts by 302 redirect, pagination by Link headers, rate limits with reset headers, 401, 404.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

const require = createRequire(import.meta.url);
const spec = require('@octokit/openapi/generated/api.github.com.json') as {
  components: { examples: Record<string, { value: Record<string, unknown[]> }> };
};
const examples = spec.components.examples;
const example = (name: string, list: string) =>
  structuredClone((examples[name]?.value[list] ?? [])[0]) as Record<string, unknown>;

export interface FakeRun {
  id: number;
  workflow_id?: number;
  name?: string;
  head_sha: string;
  head_branch?: string;
  event?: string;
  status?: string;
  conclusion?: string | null;
  run_attempt?: number;
  run_number?: number;
  created_at: string;
  run_started_at?: string;
  updated_at?: string;
}

export interface FakeStep {
  number: number;
  name: string;
  conclusion: string | null;
  started_at: string;
  completed_at: string;
}

export interface FakeJob {
  id: number;
  run_id: number;
  name: string;
  status?: string;
  conclusion: string | null;
  run_attempt?: number;
  created_at?: string;
  started_at: string;
  completed_at: string | null;
  steps?: FakeStep[];
}

export type Fault =
  | { status: 401 | 403 | 404 | 409 | 500 }
  | { status: 403 | 429; rateLimited: true; resetInSeconds: number }
  | { drop: true };

export interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
}

/** The fake API: set its data, add faults, read what it was asked. */
export class FakeGitHub {
  workflows: Array<{ id: number; name: string; path: string; state?: string }> = [];
  runs: FakeRun[] = [];
  jobs: FakeJob[] = [];
  logs = new Map<number, string>();
  artifacts = new Map<number, Array<{ id: number; name: string; zip: Uint8Array; expired?: boolean }>>();
  requests: Seen[] = [];
  private faults: Array<{ path: RegExp; fault: Fault; times: number }> = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /** Answer requests whose path matches with a fault, `times` times (default always). */
  fault(path: RegExp, fault: Fault, times = Number.POSITIVE_INFINITY): void {
    this.faults.push({ path, fault, times });
  }

  clearFaults(): void {
    this.faults = [];
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const path = url.pathname;
    this.requests.push({ method: req.method ?? 'GET', path, authorization: req.headers.authorization });
    const fault = this.faults.find((f) => f.path.test(path) && f.times > 0);
    if (fault) {
      fault.times--;
      this.fail(res, fault.fault);
      return;
    }
    const route = (method: string, pattern: RegExp) => (req.method === method ? pattern.exec(path) : null);
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const redirect = (location: string) => {
      res.writeHead(302, { location });
      res.end();
    };
    const repo = '^/repos/[^/]+/[^/]+/actions';
    const runJobs = route('GET', new RegExp(`${repo}/runs/(\\d+)/jobs$`));
    const jobLogs = route('GET', new RegExp(`${repo}/jobs/(\\d+)/logs$`));
    const logBlob = route('GET', /^\/blobs\/logs\/(\d+)$/);
    const runArtifacts = route('GET', new RegExp(`${repo}/runs/(\\d+)/artifacts$`));
    const artifactZip = route('GET', new RegExp(`${repo}/artifacts/(\\d+)/zip$`));
    const artifactBlob = route('GET', /^\/blobs\/artifacts\/(\d+)$/);
    const action = route('POST', new RegExp(`${repo}/runs/(\\d+)/(rerun|rerun-failed-jobs|cancel)$`));
    if (route('GET', new RegExp(`${repo}/workflows$`))) {
      const items = this.workflows.map((w) => ({
        ...example('workflow-paginated', 'workflows'),
        ...w,
        state: w.state ?? 'active',
      }));
      this.page(res, url, items, 'workflows');
    } else if (route('GET', new RegExp(`${repo}/runs$`))) {
      const runs = [...this.runs]
        .sort((a, b) => (a.created_at < b.created_at ? 1 : -1))
        .map((run) => this.run(run));
      this.page(res, url, runs, 'workflow_runs');
    } else if (runJobs) {
      const id = Number(runJobs[1]);
      if (!this.runs.some((r) => r.id === id)) this.notFound(res);
      else
        this.page(
          res,
          url,
          this.jobs.filter((j) => j.run_id === id).map((j) => this.job(j)),
          'jobs',
        );
    } else if (jobLogs) {
      if (!this.logs.has(Number(jobLogs[1]))) this.notFound(res);
      else redirect(`${this.url}/blobs/logs/${jobLogs[1]}?sig=x`);
    } else if (logBlob) {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(this.logs.get(Number(logBlob[1])) ?? '');
    } else if (runArtifacts) {
      const items = (this.artifacts.get(Number(runArtifacts[1])) ?? []).map((a) => ({
        ...example('artifact-paginated', 'artifacts'),
        id: a.id,
        name: a.name,
        size_in_bytes: a.zip.length,
        expired: a.expired ?? false,
      }));
      this.page(res, url, items, 'artifacts');
    } else if (artifactZip) {
      redirect(`${this.url}/blobs/artifacts/${artifactZip[1]}`);
    } else if (artifactBlob) {
      const artifact = [...this.artifacts.values()].flat().find((a) => a.id === Number(artifactBlob[1]));
      if (!artifact) this.notFound(res);
      else {
        res.writeHead(200, { 'content-type': 'application/zip' });
        res.end(Buffer.from(artifact.zip));
      }
    } else if (action) {
      const run = this.runs.find((r) => r.id === Number(action[1]));
      if (!run) this.notFound(res);
      else if (action[2] !== 'cancel') {
        run.run_attempt = (run.run_attempt ?? 1) + 1;
        run.status = 'queued';
        json(201, {});
      } else if ((run.status ?? 'completed') === 'completed') {
        json(409, { message: 'Cannot cancel a workflow run that is completed.' });
      } else {
        run.status = 'completed';
        run.conclusion = 'cancelled';
        json(202, {});
      }
    } else {
      this.notFound(res);
    }
  }

  private run(run: FakeRun): Record<string, unknown> {
    const base = example('workflow-run-paginated', 'workflow_runs');
    return {
      ...base,
      ...run,
      workflow_id: run.workflow_id ?? this.workflows[0]?.id ?? 1,
      name: run.name ?? this.workflows[0]?.name ?? 'CI',
      status: run.status ?? 'completed',
      conclusion: run.conclusion === undefined ? 'success' : run.conclusion,
      run_attempt: run.run_attempt ?? 1,
      run_number: run.run_number ?? run.id,
      event: run.event ?? 'push',
      head_branch: run.head_branch ?? 'main',
      run_started_at: run.run_started_at ?? run.created_at,
      updated_at: run.updated_at ?? run.created_at,
    };
  }

  private job(job: FakeJob): Record<string, unknown> {
    const base = example('job-paginated', 'jobs');
    return {
      ...base,
      ...job,
      status: job.status ?? 'completed',
      run_attempt: job.run_attempt ?? 1,
      created_at: job.created_at ?? job.started_at,
      steps: job.steps ?? [],
    };
  }

  /** One page of a list, with GitHub's Link header (rel next/last) when more follow. */
  private page(res: ServerResponse, url: URL, items: unknown[], key: string): void {
    const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
    const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (n: number) => {
      const next = new URL(url);
      next.searchParams.set('page', String(n));
      next.searchParams.set('per_page', String(perPage));
      return next.toString();
    };
    const links = [];
    if (page < last) links.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
    if (page > 1) links.push(`<${link(1)}>; rel="first"`, `<${link(page - 1)}>; rel="prev"`);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      ...(links.length > 0 ? { link: links.join(', ') } : {}),
    });
    res.end(
      JSON.stringify({ total_count: items.length, [key]: items.slice((page - 1) * perPage, page * perPage) }),
    );
  }

  private notFound(res: ServerResponse): void {
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end(
      JSON.stringify({
        message: 'Not Found',
        documentation_url: 'https://docs.github.com/rest',
        status: '404',
      }),
    );
  }

  private fail(res: ServerResponse, fault: Fault): void {
    if ('drop' in fault) {
      res.socket?.destroy();
      return;
    }
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
    let message = 'Server Error';
    if ('rateLimited' in fault) {
      const reset = Math.floor(Date.now() / 1000) + fault.resetInSeconds;
      headers['x-ratelimit-limit'] = '60';
      headers['x-ratelimit-remaining'] = '0';
      headers['x-ratelimit-reset'] = String(reset);
      if (fault.status === 429) headers['retry-after'] = String(fault.resetInSeconds);
      message = 'API rate limit exceeded for 127.0.0.1.';
    } else if (fault.status === 401) message = 'Bad credentials';
    else if (fault.status === 403) message = 'Resource not accessible by integration';
    else if (fault.status === 404) message = 'Not Found';
    res.writeHead(fault.status, headers);
    res.end(
      JSON.stringify({
        message,
        documentation_url: 'https://docs.github.com/rest',
        status: String(fault.status),
      }),
    );
  }
}
