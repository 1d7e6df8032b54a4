import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { ServerDefinition } from '../define.js';
import { createLogger } from '../logger.js';
import { listingSize, toolListing } from './listing.js';
import {
  checkBudget,
  checkPrompt,
  checkResource,
  checkTool,
  checkToolNames,
  type Finding,
  type Report,
} from './rules.js';

export type { ToolListing, ToolSize, ToolsListSize } from './listing.js';
export { charsToTokens, toolListing, toolsListSize } from './listing.js';
export type { Finding, Rule, Severity } from './rules.js';
export { templateVariables } from './rules.js';

/** Token budget of a server's tools/list when neither the options nor the definition set one. */
export const DEFAULT_TOKEN_BUDGET = 3500;

export interface LintOptions {
  /** Overrides `definition.tokenBudget` (default 3,500). */
  tokenBudget?: number;
}

/** Check one server against the description rules. Renders prompts, hence async. */
export async function lintServer(
  definition: ServerDefinition,
  options: LintOptions = {},
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const report: Report = (rule) => ({
    error: (where, message) => findings.push({ rule, severity: 'error', where, message }),
    warn: (where, message) => findings.push({ rule, severity: 'warning', where, message }),
  });
  const server = definition.name;
  const tools = definition.tools ?? [];
  checkToolNames(tools, server, report);
  const listings = tools.map((tool) => {
    const listing = toolListing(tool);
    checkTool(tool, listing, `${server}/${tool.name}`, report);
    return listing;
  });
  const toolNames = new Set(tools.map((tool) => tool.name));
  const ctx = { deps: definition.deps, log: createLogger(server, { level: 'silent' }), user: undefined };
  const templates = (definition.resources ?? []).map((resource) =>
    UriTemplate.isTemplate(resource.uri) ? new UriTemplate(resource.uri) : resource.uri,
  );
  const isResourceUri = (uri: string) =>
    templates.some((t) => (typeof t === 'string' ? t === uri : t.match(uri) !== null));
  for (const prompt of definition.prompts ?? []) {
    await checkPrompt(prompt, server, toolNames, ctx, report, isResourceUri);
  }
  for (const resource of definition.resources ?? []) checkResource(resource, server, report);
  const budget = options.tokenBudget ?? definition.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
  checkBudget(listingSize(listings), budget, server, report);
  return findings;
}

/** Lint every server, then check that no tool name is used by two of them. */
export async function lintServers(
  definitions: ServerDefinition[],
  options: LintOptions = {},
): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const definition of definitions) findings.push(...(await lintServer(definition, options)));
  const owners = new Map<string, string[]>();
  for (const { name: server, tools } of definitions) {
    for (const name of new Set(tools.map((tool) => tool.name))) {
      owners.set(name, [...(owners.get(name) ?? []), server]);
    }
  }
  for (const [name, servers] of owners) {
    for (const server of servers.slice(1)) {
      findings.push({
        rule: 'unique-name',
        severity: 'error',
        where: `${server}/${name}`,
        message: `\`${name}\` is a tool of servers ${servers.join(' and ')}; tool names must be unique across servers`,
      });
    }
  }
  return findings;
}

/** One line per finding: `error server/tool rule: message` (`warn` for warnings). */
export function formatFindings(findings: readonly Finding[]): string {
  return findings
    .map(
      ({ severity, where, rule, message }) =>
        `${severity === 'error' ? 'error' : 'warn '} ${where} ${rule}: ${message}`,
    )
    .join('\n');
}
export { REFERENCE_END, REFERENCE_START, renderReference, replaceReference } from './docs.js';
export type { ServerPackage } from './workspace.js';
export { findRoot, findServers, loadDefinition } from './workspace.js';
