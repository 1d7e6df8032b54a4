import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { ServerDefinition } from '@shipyard/core';
import { formatFindings, type LintOptions, lintServer } from '@shipyard/core/lint';

export interface ContractExpectation {
  /** Tool names, in any order. */
  tools: string[];
  /** Static resource URIs and URI templates (`tickets://{key}`), in any order. Default: none. */
  resources?: string[];
  /** Prompt names, in any order. Default: none. */
  prompts?: string[];
  /**
   * Tools listed without a title on purpose: their name already says what a title would, and hosts show the
   * name when there is none. These must have no title; every other tool needs one. Default: none.
   */
  untitled?: string[];
}

export interface ContractOptions {
  /** Options for the description lint (e.g. a token budget). */
  lint?: LintOptions;
}

/**
 * The hints a tool must list explicitly: openWorldHint always, and destructiveHint on a tool that is not
 * read-only, so a host that ignores the MCP defaults never takes one for safe. The others may be left to the
 * defaults (readOnlyHint and idempotentHint false).
 */
const explicitHints = (annotations: { readOnlyHint?: boolean } | undefined) =>
  annotations?.readOnlyHint === true
    ? (['openWorldHint'] as const)
    : (['destructiveHint', 'openWorldHint'] as const);

/**
 * Assert what a server exposes through `client`: exactly these tool, resource (static URIs and templates)
 * and prompt names; every tool has a title (but the `untitled` ones, which have none), input and output
 * schemas and the hints it must list (see explicitHints); and the description lint of `definition` has no
 * errors. Throws one error listing every problem.
 */
export async function assertContract(
  client: Client,
  definition: ServerDefinition,
  expected: ContractExpectation,
  options: ContractOptions = {},
): Promise<void> {
  const [{ tools }, { resources }, { resourceTemplates }, { prompts }] = await Promise.all([
    client.listTools(),
    client.listResources(),
    client.listResourceTemplates(),
    client.listPrompts(),
  ]);
  // resources/list also holds what templates' list() expands to; keep the URIs that are static.
  const templates = resourceTemplates.map((t) => new UriTemplate(t.uriTemplate));
  const definedStatic = new Set((definition.resources ?? []).map((r) => r.uri));
  const staticUris = resources
    .map((r) => r.uri)
    .filter((uri) => definedStatic.has(uri) || !templates.some((t) => t.match(uri)));

  const problems = [
    ...diffNames(
      'tools',
      tools.map((t) => t.name),
      expected.tools,
    ),
    ...diffNames(
      'resources',
      [...staticUris, ...resourceTemplates.map((t) => t.uriTemplate)],
      expected.resources ?? [],
    ),
    ...diffNames(
      'prompts',
      prompts.map((p) => p.name),
      expected.prompts ?? [],
    ),
  ];
  const untitled = new Set(expected.untitled ?? []);
  for (const tool of tools) {
    if (untitled.has(tool.name) && tool.title)
      problems.push(`tool ${tool.name} has a title, but is expected untitled`);
    const missing = [
      ...(tool.title || untitled.has(tool.name) ? [] : ['title']),
      ...(tool.inputSchema ? [] : ['inputSchema']),
      ...(tool.outputSchema ? [] : ['outputSchema']),
      ...explicitHints(tool.annotations)
        .filter((hint) => typeof tool.annotations?.[hint] !== 'boolean')
        .map((hint) => `annotations.${hint}`),
    ];
    if (missing.length > 0) problems.push(`tool ${tool.name} lacks ${missing.join(', ')}`);
  }

  const lintErrors = (await lintServer(definition, options.lint)).filter((f) => f.severity === 'error');
  if (lintErrors.length > 0) {
    problems.push(`the description lint has ${lintErrors.length} error(s):\n${formatFindings(lintErrors)}`);
  }

  if (problems.length > 0)
    throw new Error(`Contract of ${definition.name} broken:\n- ${problems.join('\n- ')}`);
}

/** Names that differ between what the server lists and what the test expects, as readable lines. */
function diffNames(kind: string, actual: string[], expected: string[]): string[] {
  const have = new Set(actual);
  const want = new Set(expected);
  const missing = [...want].filter((name) => !have.has(name)).sort();
  const extra = [...have].filter((name) => !want.has(name)).sort();
  const duplicates = actual.filter((name, i) => actual.indexOf(name) !== i);
  return [
    ...(missing.length ? [`${kind}: missing ${missing.join(', ')} (expected but not listed)`] : []),
    ...(extra.length ? [`${kind}: unexpected ${extra.join(', ')} (listed but not expected)`] : []),
    ...(duplicates.length ? [`${kind}: listed more than once: ${duplicates.join(', ')}`] : []),
  ];
}

/** tools/list as stable, pretty JSON (tools sorted by name, keys sorted), for snapshot tests. */
export async function snapshotToolSchemas(client: Client): Promise<string> {
  const { tools } = await client.listTools();
  const sorted = [...tools].sort((a, b) => a.name.localeCompare(b.name));
  return JSON.stringify(sorted, (_key, value: unknown) => sortKeys(value), 2);
}

function sortKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
