// Repositories, artifact name patterns and uploaded paths: plain text rules.
import { InvalidInput } from '@shipyard/core';

/** owner/name as GitHub allows them. */
export const REPO_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

export function checkRepo(repo: string): string {
  if (!REPO_PATTERN.test(repo) || repo.endsWith('/.') || repo.endsWith('/..')) {
    throw new InvalidInput(`"${repo.slice(0, 120)}" is not a repository: write it as owner/name`, {
      hint: 'Pass repo as owner/name, e.g. octo-org/octo-repo',
    });
  }
  return repo;
}

/** owner/name of the `origin` remote in the text of a .git/config file, if it has one. */
export function originRepo(gitConfig: string): string | undefined {
  let inOrigin = false;
  for (const raw of gitConfig.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) {
      inOrigin = /^\[remote\s+"origin"\]$/.test(line);
      continue;
    }
    if (!inOrigin) continue;
    const url = /^url\s*=\s*(.+)$/.exec(line)?.[1]?.trim();
    if (!url) continue;
    // git@host:owner/name.git, ssh://git@host/owner/name, https://host/owner/name(.git)
    const path = /^[^@/]+@[^:/]+:(.+)$/.exec(url)?.[1] ?? /^[a-z+]+:\/\/[^/]+\/(.+)$/.exec(url)?.[1];
    const repo = path?.replace(/\.git$/, '').replace(/\/$/, '');
    return repo && REPO_PATTERN.test(repo) ? repo : undefined;
  }
  return undefined;
}

/** Default artifact name patterns for test reports. */
export const DEFAULT_JUNIT_ARTIFACTS = ['*junit*', '*test-results*'];

/** A test of names against comma-separated glob patterns (`*` any run of characters, case-insensitive). */
export function globs(patterns: readonly string[]): (name: string) => boolean {
  const regexes = patterns.map(
    (glob) =>
      new RegExp(
        `^${glob
          .split('*')
          .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('.*')}$`,
        'i',
      ),
  );
  return (name) => regexes.some((regex) => regex.test(name));
}
