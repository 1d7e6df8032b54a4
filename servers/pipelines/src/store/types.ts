// The storage of the pipelines server, whatever the engine: every method is async.
import type { TestResult } from '../domain/junit.js';
import type {
  CachedLog,
  FlakyJob,
  FlakyTest,
  Job,
  LogIndex,
  ReportInput,
  Run,
  RunFilter,
  Workflow,
} from '../domain/model.js';

export interface Window {
  limit: number;
  offset: number;
}

export interface PipelinesStore {
  /**
   * Report the URIs other processes on the same data changed (`changedAll`: changes may have been missed,
   * take every URI as changed); returns the function that stops.
   */
  watch(changed: (...uris: string[]) => void, changedAll?: () => void): () => void;
  saveWorkflows(workflows: Workflow[]): Promise<string[]>;
  listWorkflows(repo: string): Promise<Workflow[]>;
  /** A workflow by id, name or file name (ci.yml) in a repo. */
  findWorkflow(repo: string, key: string): Promise<Workflow | undefined>;

  /** Insert or update runs and their jobs; returns the URIs that changed. */
  saveRuns(runs: Array<{ run: Run; jobs: Job[] }>): Promise<string[]>;
  listRuns(filter: RunFilter, window: Window): Promise<{ runs: Run[]; total: number }>;
  getRun(id: number): Promise<Run | undefined>;
  getJobs(runId: number): Promise<Job[]>;
  getJob(jobId: number): Promise<(Job & { repo: string }) | undefined>;
  /** The newest updated time of the runs synced for a repo (for incremental sync). */
  lastSynced(repo: string): Promise<string | undefined>;
  markSynced(repo: string, at: string): Promise<void>;
  /** Ids of runs and jobs, as text, that start with a prefix (for completion). */
  completeRunIds(prefix: string): Promise<string[]>;
  completeJobIds(runId: number, prefix: string): Promise<string[]>;

  /** Cache a job's clean log lines with its error index, evicting the oldest logs over the cap. */
  saveLog(log: CachedLog, index: LogIndex, capBytes: number): Promise<void>;
  getLog(jobId: number): Promise<CachedLog | undefined>;
  getLogIndex(jobId: number): Promise<LogIndex | undefined>;
  hasLog(jobId: number): Promise<boolean>;

  /**
   * Store a report's results; returns the URIs that changed. With `once`, a report from the same source
   * already stored for the repo is kept instead (`stored: false`, its id), decided in the write itself.
   */
  saveReport(report: ReportInput): Promise<{ id: number; changed: string[]; stored: boolean }>;
  /** Whether a report from this source (an artifact's file) was stored for the repo. */
  hasReport(repo: string, source: string): Promise<boolean>;
  failedTests(runId: number): Promise<TestResult[]>;
  flakyTests(
    repo: string,
    since: string | undefined,
    window: Window,
  ): Promise<{ tests: FlakyTest[]; total: number }>;
  flakyJobs(repo: string, since: string | undefined, limit: number): Promise<FlakyJob[]>;

  /** Durations of completed successful runs (or of one job's runs) of a workflow since a time. */
  durations(
    workflowId: number,
    job: string | undefined,
    from: string,
  ): Promise<Array<{ started_at: string; duration_ms: number }>>;
}
