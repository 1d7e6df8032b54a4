#!/usr/bin/env node
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { ServerDefinition } from '../define.js';
import { DEFAULT_TOKEN_BUDGET, type Finding, formatFindings, lintServers, toolsListSize } from './index.js';
import { findRoot, findServers, loadDefinition } from './workspace.js';

const USAGE = `Usage: shipyard-lint [--root DIR] [--json] [server...]

Lints every servers/<name> package whose package.json has "shipyard": { "definition": "./dist/server.js" }.
Server names filter by directory name. Exits 1 when there is an error finding.`;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    options: { root: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const root = values.root ? resolve(values.root) : findRoot(process.cwd());
  const all = findServers(root);
  const unknown = positionals.filter((name) => !all.some((server) => server.name === name));
  if (unknown.length > 0) {
    throw new Error(
      `unknown server ${unknown.join(', ')}; servers: ${all.map((s) => s.name).join(', ') || 'none'}`,
    );
  }
  const selected = positionals.length > 0 ? all.filter((server) => positionals.includes(server.name)) : all;

  const definitions: ServerDefinition[] = [];
  const failures: string[] = [];
  for (const server of selected) {
    try {
      definitions.push(await loadDefinition(server.definition, server.name, root));
    } catch (error) {
      failures.push(`error servers/${server.name}: ${messageOf(error)}`);
    }
  }
  if (failures.length > 0) {
    process.stderr.write(`${failures.join('\n')}\n`);
    return 1;
  }

  const findings = await lintServers(definitions);
  const errors = findings.filter((finding) => finding.severity === 'error').length;
  const output = values.json
    ? JSON.stringify({ servers: definitions.map((d) => d.name), findings }, null, 2)
    : textReport(definitions, findings, errors);
  process.stdout.write(`${output}\n`);
  return errors > 0 ? 1 : 0;
}

/** The findings, one size line per server, then the summary. */
function textReport(definitions: ServerDefinition[], findings: Finding[], errors: number): string {
  const lines = findings.length > 0 ? [formatFindings(findings)] : [];
  for (const definition of definitions) {
    const budget = definition.tokenBudget ?? DEFAULT_TOKEN_BUDGET;
    const { tokens } = toolsListSize(definition);
    lines.push(`${definition.name}: ${definition.tools.length} tools, ${tokens} tokens (budget ${budget})`);
  }
  const tools = definitions.reduce((sum, definition) => sum + definition.tools.length, 0);
  const warnings = findings.length - errors;
  lines.push(
    `shipyard-lint: ${definitions.length} servers, ${tools} tools, ${errors} errors, ${warnings} warnings`,
  );
  return lines.join('\n');
}

/** Exit once stdout is flushed; an imported definition may hold handles that would keep the process alive. */
function exit(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

main().then(exit, (error: unknown) => {
  process.stderr.write(`shipyard-lint: ${messageOf(error)}\n`);
  exit(1);
});
