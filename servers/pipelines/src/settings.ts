import type { ServerSetting } from '@shipyard/core';

/** The pipelines server's own flags, besides core's. GITHUB_TOKEN and GITHUB_API_URL are read as GitHub's tools read them. */
export const SETTINGS: ServerSetting[] = [
  {
    flag: 'repo',
    value: 'OWNER/NAME',
    env: 'SHIPYARD_PIPELINES_REPO',
    description: "Default repository (default: the origin remote of the current directory's .git/config)",
  },
  {
    flag: 'token-file',
    value: 'FILE',
    env: 'SHIPYARD_PIPELINES_TOKEN_FILE',
    description: 'Read the GitHub token from FILE instead of GITHUB_TOKEN',
  },
  {
    flag: 'reports-dir',
    value: 'DIR',
    env: 'SHIPYARD_PIPELINES_REPORTS_DIR',
    description: 'Where ingest_test_report may read report files when the client offers no roots',
  },
  {
    flag: 'junit-artifact',
    value: 'a,b',
    env: 'SHIPYARD_PIPELINES_JUNIT_ARTIFACT',
    description: 'Artifact name patterns holding JUnit XML (default *junit*,*test-results*)',
  },
  {
    flag: 'log-cache-mb',
    value: 'MB',
    env: 'SHIPYARD_PIPELINES_LOG_CACHE_MB',
    description: 'Cap of the compressed job log cache; oldest logs go first (default 200)',
  },
];
