// The plain shapes the store returns and the tools answer with.
import type { TestResult } from './junit.js';

export type Workflow = {
  id: number;
  repo: string;
  name: string;
  path: string;
  state: string;
};

export type Run = {
  id: number;
  repo: string;
  workflow_id: number;
  workflow: string;
  run_number: number;
  branch: string | null;
  commit: string;
  event: string;
  status: string;
  conclusion: string | null;
  attempt: number;
  created_at: string;
  started_at: string | null;
  /** When a completed run finished (GitHub's updated_at of a completed run); null while it runs. */
  finished_at: string | null;
  url: string;
};

export type Step = {
  number: number;
  name: string;
  status: string;
  conclusion: string | null;
  started_at: string | null;
  completed_at: string | null;
};

export type Job = {
  id: number;
  run_id: number;
  name: string;
  status: string;
  conclusion: string | null;
  attempt: number;
  created_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  steps: Step[];
};

export interface RunFilter {
  repo: string;
  workflow?: string | undefined;
  branch?: string | undefined;
  status?: string | undefined;
  commit?: string | undefined;
  event?: string | undefined;
}

export type FlakyTest = {
  suite: string;
  name: string;
  /** Results seen for it. */
  runs_seen: number;
  /** Commits it ran on. */
  commits_seen: number;
  /** Commits where it failed and then passed. */
  flaky_commits: number;
  /** flaky_commits / commits_seen. */
  flip_rate: number;
  last_seen: string;
  last_flaky: string;
};

export type FlakyJob = {
  workflow: string;
  job: string;
  commits_seen: number;
  flaky_commits: number;
  flip_rate: number;
  last_flaky: string;
};

export interface ReportInput {
  repo: string;
  source: string;
  commit: string | null;
  run_id: number | null;
  /** When the results were produced: orders "failed then passed". */
  seen_at: string;
  results: TestResult[];
  /** Store it only if no report from this source is stored for the repo yet (an artifact synced twice). */
  once?: boolean;
}

export interface CachedLog {
  job_id: number;
  lines: string[];
}

export interface LogIndex {
  job_id: number;
  total_lines: number;
  /** 0-based error line numbers (the first ones) and the rule each matched. */
  error_lines: number[];
  error_rules: string[];
  error_total: number;
  /** Excerpts around the first error lines, made when the log was cached. */
  excerpts: import('./logs.js').Excerpt[];
}

export const runUri = (id: number) => `pipelines://runs/${id}`;
export const logUri = (run: number, job: number) => `pipelines://runs/${run}/jobs/${job}/log`;
export const FLAKY_URI = 'pipelines://flaky';
export const durationsUri = (workflow: string | number) =>
  `pipelines://workflows/${encodeURIComponent(String(workflow))}/durations.svg`;
