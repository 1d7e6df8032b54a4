// What the server asks of GitHub Actions, whatever client answers it (octokit, or a test's fake).
import type { Job, Run, Workflow } from '../domain/model.js';

export interface Artifact {
  id: number;
  name: string;
  expired: boolean;
  size_in_bytes: number;
}

export interface GitHubApi {
  listWorkflows(repo: string, signal?: AbortSignal): Promise<Workflow[]>;
  /** Runs newest first, page by page (100 a page), until the caller stops. */
  runs(repo: string, signal?: AbortSignal): AsyncIterable<Run[]>;
  /** Every job of a run, of every attempt. */
  listJobs(repo: string, runId: number, signal?: AbortSignal): Promise<Job[]>;
  /** A job's raw log text (GitHub answers with a redirect to it). */
  jobLog(repo: string, jobId: number, signal?: AbortSignal): Promise<string>;
  listArtifacts(repo: string, runId: number, signal?: AbortSignal): Promise<Artifact[]>;
  /** An artifact's zip archive. */
  downloadArtifact(repo: string, artifactId: number, signal?: AbortSignal): Promise<Uint8Array>;
  rerun(repo: string, runId: number, failedOnly: boolean): Promise<void>;
  cancel(repo: string, runId: number): Promise<void>;
}
