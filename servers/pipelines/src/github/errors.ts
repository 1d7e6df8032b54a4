import { Conflict, Forbidden, NotFound, type ShipyardError, Upstream } from '@shipyard/core';

interface HttpLike {
  status?: number;
  response?: { headers?: Record<string, string | number | undefined> };
  code?: string;
  cause?: unknown;
}

/** When a limit resets, from GitHub's headers: retry-after (seconds) or x-ratelimit-reset (epoch seconds). */
function resetTime(headers: Record<string, string | number | undefined>, now: number): Date | undefined {
  const after = Number(headers['retry-after']);
  if (Number.isFinite(after) && after > 0) return new Date(now + after * 1000);
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) return new Date(reset * 1000);
  return undefined;
}

/**
 * A GitHub API failure as an error the caller can act on. Built from the status and headers only: the
 * client's own message may quote the request, and nothing of the request (its token) reaches an answer.
 */
export function githubError(error: unknown, what: string, now = Date.now()): ShipyardError {
  const e = (error ?? {}) as HttpLike;
  const status = typeof e.status === 'number' ? e.status : undefined;
  const headers = e.response?.headers ?? {};
  const limited =
    status === 429 ||
    (status === 403 && (String(headers['x-ratelimit-remaining']) === '0' || 'retry-after' in headers));
  if (limited) {
    const reset = resetTime(headers, now);
    const wait = reset ? Math.max(1, Math.ceil((reset.getTime() - now) / 1000)) : 60;
    return new Upstream(
      `GitHub's rate limit is reached (${status}) while ${what}; retry after ${reset ? reset.toISOString() : 'a minute'} (in ${wait} s)`,
      {
        hint: `Wait ${wait} s and call again; a token (GITHUB_TOKEN) raises the limit, and sync_runs with a smaller max_runs makes fewer requests`,
      },
    );
  }
  if (status === 401) {
    return new Forbidden(
      `GitHub refused the credentials (401) while ${what}: the token is missing, wrong or expired`,
      {
        hint: 'Set GITHUB_TOKEN (or --token-file) to a valid token with Actions read access, then restart the server',
      },
    );
  }
  if (status === 403) {
    return new Forbidden(`GitHub refused access (403) while ${what}: the token lacks the permission`, {
      hint: 'Give the token Actions read access (fine-grained) or the repo scope (classic); rerun and cancel need Actions write',
    });
  }
  if (status === 404) {
    return new NotFound(`GitHub has no such thing (404) while ${what}`, {
      hint: 'Check the repo (owner/name) and the id (list_runs); a private repo needs a token that can see it',
    });
  }
  if (status === 409) {
    return new Conflict(`GitHub refused (409) while ${what}: the run is not in a state that allows it`, {
      hint: 'get_run shows its status: a completed run cannot be cancelled, a running one cannot be rerun',
    });
  }
  if (status === 410) {
    return new NotFound(`GitHub no longer has it (410 Gone) while ${what}: logs and artifacts expire`, {
      hint: 'Nothing to fetch: read what sync_runs cached before, or rerun the run',
    });
  }
  if (status !== undefined && status >= 400 && status < 500) {
    return new Upstream(`GitHub refused the request (${status}) while ${what}`, {
      hint: 'Check the arguments; call again later if it persists',
    });
  }
  // 5xx, or no answer at all (the client reports a failed fetch as status 500).
  return new Upstream(
    `GitHub could not be reached or failed (${status ?? e.code ?? 'network error'}) while ${what}`,
    {
      hint: 'Retry in a minute; check the network and GITHUB_API_URL if it persists',
    },
  );
}
