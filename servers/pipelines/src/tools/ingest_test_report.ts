import { readFile, stat } from 'node:fs/promises';
import { InvalidInput, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { clip } from '../domain/logs.js';
import { allowedPlaces, checkReportPath, fields, ingest, repoOf } from './shared.js';

const MAX_CONTENT = 5_000_000;
const MAX_FILE = 50_000_000;

export default tool({
  name: 'ingest_test_report',
  title: 'Ingest a JUnit test report',
  description:
    'Store the results of a JUnit XML report from any CI (Jest, pytest, Surefire, Go): its content, or a path ' +
    "inside the client's roots (else --reports-dir), with the repo, commit and run it belongs to. Returns counts " +
    'and the failed tests. Use this to feed find_flaky_tests from CI other than GitHub Actions.',
  input: {
    content: z.string().min(1).max(MAX_CONTENT).optional().describe('The XML itself'),
    path: z
      .string()
      .min(1)
      .max(4_096)
      .optional()
      .describe('Or a file path, relative to the first allowed place'),
    repo: fields.repo,
    commit: z
      .string()
      .regex(/^[0-9a-fA-F]{7,40}$/, 'hex')
      .optional()
      .describe('Commit tested; needed for flakiness'),
    run: fields.run.optional().describe('GitHub run id it belongs to, if any'),
    finished_at: z.string().max(40).optional().describe('ISO time it ran (default now)'),
  },
  output: {
    report: z.number(),
    tests: z.number(),
    passed: z.number(),
    failed: z.number(),
    skipped: z.number(),
    failed_tests: z.array(z.object({ suite: z.string(), name: z.string(), message: z.string() })),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(input, ctx) {
    const repo = repoOf(input.repo, ctx.deps);
    if ((input.content === undefined) === (input.path === undefined)) {
      throw new InvalidInput('Pass exactly one of content and path', {
        hint: 'content takes the XML itself; path a file inside the client roots or --reports-dir',
      });
    }
    const seen = input.finished_at === undefined ? Date.now() : Date.parse(input.finished_at);
    if (!Number.isFinite(seen)) {
      throw new InvalidInput(`finished_at "${input.finished_at}" is not a date`, {
        hint: 'Write it as 2025-01-31T12:00:00Z',
      });
    }
    let xml = input.content;
    let source = 'content';
    if (input.path !== undefined) {
      const file = await checkReportPath(input.path, await allowedPlaces(ctx.deps, ctx.roots));
      if ((await stat(file)).size > MAX_FILE) {
        throw new InvalidInput(`${input.path} is over ${MAX_FILE / 1_000_000} MB`, {
          hint: 'Split the report',
        });
      }
      xml = await readFile(file, 'utf8');
      source = file;
    }
    const saved = await ingest(ctx.deps, {
      repo,
      source,
      xml: xml as string,
      commit: input.commit?.toLowerCase() ?? null,
      run_id: input.run ?? null,
      seen_at: new Date(seen).toISOString(),
    });
    ctx.changed(...saved.changed);
    const count = (status: string) => saved.results.filter((r) => r.status === status).length;
    const failed = saved.results.filter((r) => r.status === 'failed');
    return {
      report: saved.id,
      tests: saved.results.length,
      passed: count('passed'),
      failed: failed.length,
      skipped: count('skipped'),
      failed_tests: failed
        .slice(0, 20)
        .map((r) => ({ suite: r.suite, name: r.name, message: clip(r.message, 500) })),
    };
  },
});
