import { SETTINGS, settingRow } from '../config-help.js';
import type { ServerDefinition } from '../define.js';
import { templateVariables } from './rules.js';

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

function hints(annotations: ServerDefinition['tools'][number]['annotations']): string {
  if (annotations.readOnlyHint) return 'read-only';
  return [
    annotations.destructiveHint ? 'destructive' : 'additive',
    annotations.idempotentHint ? 'idempotent' : undefined,
    annotations.openWorldHint ? 'open world' : undefined,
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * The README reference of a server, generated from its definition so that it cannot drift:
 * tools, resources, prompts, flags and environment variables.
 */
export function renderReference(definition: ServerDefinition): string {
  const lines = ['### Tools', '', '| Tool | Kind | What it does |', '|---|---|---|'];
  for (const tool of definition.tools) {
    const kind = `${hints(tool.annotations)}${tool.images ? '; returns images' : ''}`;
    lines.push(`| \`${tool.name}\` | ${kind} | ${cell(tool.description)} |`);
  }
  const resources = definition.resources ?? [];
  if (resources.length > 0) {
    lines.push('', '### Resources', '', '| URI | Type | What it holds |', '|---|---|---|');
    for (const resource of resources) {
      const vars = templateVariables(resource.uri)
        .map((name) => `\`${name}\`: ${resource.variables?.[name]?.description ?? ''}`)
        .join('; ');
      lines.push(
        `| \`${resource.uri}\` | ${resource.mimeType}${resource.binary ? ' (binary)' : ''} | ${cell(resource.description)}${vars ? ` (${cell(vars)})` : ''} |`,
      );
    }
  }
  const prompts = definition.prompts ?? [];
  if (prompts.length > 0) {
    lines.push('', '### Prompts', '', '| Prompt | Arguments | What it does |', '|---|---|---|');
    for (const prompt of prompts) {
      const args = Object.entries(prompt.args)
        .map(([name, arg]) => `\`${name}\`${arg.required ? '' : ' (optional)'}`)
        .join(', ');
      lines.push(`| \`${prompt.name}\` | ${args || 'none'} | ${cell(prompt.description)} |`);
    }
  }
  lines.push('', '### Flags and environment', '', '| Flag | Environment | Meaning |', '|---|---|---|');
  for (const setting of [...(definition.settings ?? []).map(settingRow), ...SETTINGS]) {
    lines.push(
      `| ${setting.flag ? `\`${cell(setting.flag)}\`` : ''} | ${setting.env ? `\`${setting.env}\`` : ''} | ${cell(setting.description)} |`,
    );
  }
  return lines.join('\n');
}

export const REFERENCE_START = '<!-- shipyard:reference:start -->';
export const REFERENCE_END = '<!-- shipyard:reference:end -->';

/** Replace the text between the reference markers of a README; throws when the markers are missing. */
export function replaceReference(readme: string, reference: string): string {
  const start = readme.indexOf(REFERENCE_START);
  const end = readme.indexOf(REFERENCE_END);
  if (start < 0 || end < start) {
    throw new Error(`README has no ${REFERENCE_START} ... ${REFERENCE_END} markers`);
  }
  return `${readme.slice(0, start + REFERENCE_START.length)}\n${reference}\n${readme.slice(end)}`;
}
