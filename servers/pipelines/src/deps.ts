import { defineFor } from '@shipyard/core';
import type { GitHubApi } from './github/types.js';
import type { PipelinesStore } from './store/types.js';

export interface PipelinesDeps {
  store: PipelinesStore;
  github: GitHubApi;
  /** The default repository (--repo, SHIPYARD_PIPELINES_REPO, or the origin remote), if any. */
  repo: string | undefined;
  /** Where ingest_test_report may read a path when the client offers no roots (--reports-dir). */
  reportsDir: string | undefined;
  /** Artifact name patterns that hold JUnit reports (--junit-artifact). */
  junitArtifacts: string[];
  /** Cap of the compressed log cache, in bytes. */
  logCacheBytes: number;
  /** Opens what the store opens lazily; called once the first client has initialized. */
  warmUp?: () => void | Promise<void>;
  /** Called once on shutdown (closes the database). */
  close?: () => void | Promise<void>;
}

/** The define helpers of this server: their handlers get `ctx.deps` as PipelinesDeps. */
export const { tool, resource, prompt } = defineFor<PipelinesDeps>();
