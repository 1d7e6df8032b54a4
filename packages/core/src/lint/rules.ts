import type {
  BaseContext,
  PromptDefinition,
  ResourceDefinition,
  ToolAnnotations,
  ToolDefinition,
} from '../define.js';
import { validatedInputSchema } from '../schema.js';
import type { ToolListing, ToolsListSize } from './listing.js';

export type Rule =
  | 'tool-name'
  | 'description'
  | 'parameters'
  | 'annotations'
  | 'output'
  | 'prompts'
  | 'resources'
  | 'budget'
  | 'unique-name';

export type Severity = 'error' | 'warning';

export interface Finding {
  rule: Rule;
  severity: Severity;
  /** `server`, `server/tool`, `server/tool.field`, `server/prompt:name` or `server/resource:uri`. */
  where: string;
  message: string;
}

export interface Reporter {
  error(where: string, message: string): void;
  warn(where: string, message: string): void;
}

/** Hands each rule a reporter that files findings under its id. */
export type Report = (rule: Rule) => Reporter;

export const TOOL_NAME = /^[a-z][a-z0-9_]{2,47}$/;
const PROMPT_NAME = /^[a-z][a-z0-9-]{2,47}$/;
const VERBS = new Set(
  `create get list search find query count update edit set patch upsert delete remove add insert append
  attach detach link unlink transition move rename copy clone merge split assign unassign close open reopen
  approve reject submit publish unpublish run execute trigger schedule cancel retry start stop pause resume
  save load read write fetch download upload send post reply notify summarize describe explain analyze
  archive unarchive restore backup import export sync validate verify check test compare diff preview plan
  estimate rank score sort filter group tag untag label comment echo mark lock unlock pin unpin enable disable
  generate render convert translate extract parse format resolve lookup calculate compute invite share
  subscribe unsubscribe follow unfollow watch unwatch review inspect scan refresh reset clear purge prune
  complete claim release deploy build install suggest recommend record forecast ingest rerun`.split(/\s+/),
);

const RETURNS = /\b(returns?|returning|responds? with|gives|yields)\b/i;
const WHEN_TO_USE =
  /\b(use|call)\s+(this|it|when|before|after|instead|if|first|only)\b|\b(before|after|instead of)\s+(calling|using)\b/i;
const VAGUE_START = /^(a|an|the|this|tool)\b/i;
const INPUT_WORDS = /\b(given|by|with|for)\b/i;
const MIN_FIELD_DESCRIPTION = 8;
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

const spaced = (name: string) => name.toLowerCase().replaceAll('_', ' ');
const normalize = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
const errorMessage = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Name format, verb first, and no two tools of one server with the same name. */
export function checkToolNames(tools: ToolDefinition[], server: string, report: Report): void {
  const { error, warn } = report('tool-name');
  const counts = new Map<string, number>();
  for (const tool of tools) counts.set(tool.name, (counts.get(tool.name) ?? 0) + 1);
  for (const [name, count] of counts) {
    const where = `${server}/${name}`;
    // `bulk_` may come before the verb: bulk_update_tickets acts like update, on many.
    const words = name.split('_');
    const verb = (words[0] === 'bulk' ? words[1] : words[0]) ?? '';
    if (!TOOL_NAME.test(name)) {
      error(where, `must match ${TOOL_NAME.source} (snake_case, 3-48 characters)`);
    } else if (!VERBS.has(verb)) {
      warn(where, `should start with a verb (create_, get_, search_…); "${verb}" is not one`);
    }
    if (count > 1) error(where, `is defined ${count} times on this server`);
  }
}

/** The per-tool rules: description, parameters, annotations and output. */
export function checkTool(tool: ToolDefinition, listing: ToolListing, where: string, report: Report): void {
  checkDescription(tool, where, report);
  checkParameters(tool, listing, where, report);
  checkAnnotations(tool, where, report);
  checkOutput(tool, where, report);
}

function checkDescription(tool: ToolDefinition, where: string, report: Report): void {
  const text = (tool.description ?? '').trim();
  const lower = text.toLowerCase();
  const { error, warn } = report('description');
  if (text.length < 40 || text.length > 1024) {
    error(where, `is ${text.length} characters; keep it between 40 and 1024`);
  }
  if (!RETURNS.test(text)) error(where, 'does not say what the tool returns ("Returns …")');
  if (!WHEN_TO_USE.test(text)) error(where, 'does not say when to use the tool ("Use this when …")');
  if (VAGUE_START.test(text) || lower.startsWith(tool.name.toLowerCase())) {
    warn(where, 'should start with the action ("Create a note …"), not with A/The/This/Tool or its name');
  }
  const fields = Object.keys(tool.input ?? {});
  const mentions = (field: string) => lower.includes(field.toLowerCase()) || lower.includes(spaced(field));
  if (fields.length > 0 && !INPUT_WORDS.test(text) && !fields.some(mentions)) {
    warn(where, `does not mention its inputs (${fields.join(', ')})`);
  }
}

function checkParameters(tool: ToolDefinition, listing: ToolListing, where: string, report: Report): void {
  const properties = (listing.inputSchema.properties ?? {}) as Record<string, unknown>;
  // Bounds are checked where they hold, in what the runtime validates: the listing may leave some out.
  const validated = (validatedInputSchema(tool.input ?? {}).properties ?? {}) as Record<string, unknown>;
  for (const field of Object.keys(tool.input ?? {})) {
    const description = descriptionOf(properties[field])?.trim() ?? '';
    const problem = !description
      ? 'has no .describe(); say what the value means, its format or an example'
      : normalize(description) === normalize(field)
        ? `is described only by its own name ("${description}")`
        : description.length < MIN_FIELD_DESCRIPTION
          ? `has too short a description ("${description}"); say what the value means`
          : undefined;
    if (problem) report('parameters').error(`${where}.${field}`, `\`${field}\` ${problem}`);
    for (const unbounded of unboundedParts(validated[field], field)) {
      report('parameters').error(
        `${where}.${field}`,
        `\`${unbounded.path}\` is ${unbounded.kind === 'string' ? 'a string' : 'a list'} with no .max(); cap it, so one call cannot send megabytes`,
      );
    }
  }
}

/**
 * The strings without maxLength and arrays without maxItems in a property's JSON Schema, record keys and
 * tuple members included. A string held to an enum, or to a pattern that bounds its length (a key, a date),
 * counts as bounded: its shape says how long it can be. A format alone does not (an email or a URL can be
 * any length), nor does a pattern with `*`, `+` or `{n,}` (zod's email pattern, a datetime's fraction).
 */
function unboundedParts(node: unknown, path: string): { path: string; kind: 'string' | 'array' }[] {
  if (!node || typeof node !== 'object') return [];
  const schema = node as Record<string, unknown>;
  const types = ([] as unknown[]).concat(schema.type ?? []);
  const found: { path: string; kind: 'string' | 'array' }[] = [];
  const bounded =
    schema.enum !== undefined ||
    schema.const !== undefined ||
    (typeof schema.pattern === 'string' && boundsLength(schema.pattern));
  if (types.includes('string') && schema.maxLength === undefined && !bounded)
    found.push({ path, kind: 'string' });
  if (types.includes('array') && schema.maxItems === undefined) found.push({ path, kind: 'array' });
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const member of (schema[key] as unknown[] | undefined) ?? [])
      found.push(...unboundedParts(member, path));
  }
  ((schema.prefixItems as unknown[] | undefined) ?? []).forEach((member, i) => {
    found.push(...unboundedParts(member, `${path}[${i}]`));
  });
  if (schema.propertyNames) found.push(...unboundedParts(schema.propertyNames, `${path} (a key)`));
  if (schema.items) found.push(...unboundedParts(schema.items, `${path}[]`));
  for (const [name, child] of Object.entries((schema.properties as Record<string, unknown>) ?? {})) {
    found.push(...unboundedParts(child, `${path}.${name}`));
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    found.push(...unboundedParts(schema.additionalProperties, `${path}.*`));
  }
  return found;
}

/**
 * Whether a regular expression only matches strings of a bounded length: anchored by `^` and `$` around the
 * whole of it (no `|` outside a group), with no `*`, `+` or `{n,}` outside a character class. Conservative:
 * a pattern it cannot read that way counts as unbounded.
 */
export function boundsLength(pattern: string): boolean {
  if (!pattern.startsWith('^')) return false;
  let depth = 0;
  let inClass = false;
  let last = -1;
  for (let i = 1; i < pattern.length; i++) {
    const c = pattern[i];
    last = i;
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '*' || c === '+' || (c === '|' && depth === 0)) return false;
    else if (c === '{' && /^\{\d*,\}/.test(pattern.slice(i))) return false;
  }
  return !inClass && depth === 0 && last === pattern.length - 1 && pattern[last] === '$';
}

/** A property's description in JSON Schema, also inside the anyOf that `.nullable()` produces. */
function descriptionOf(node: unknown): string | undefined {
  if (!node || typeof node !== 'object') return undefined;
  const schema = node as { description?: unknown; anyOf?: unknown[]; oneOf?: unknown[]; allOf?: unknown[] };
  if (typeof schema.description === 'string') return schema.description;
  const members = [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])];
  return members.map(descriptionOf).find((description) => description !== undefined);
}

function checkAnnotations(tool: ToolDefinition, where: string, report: Report): void {
  const { error } = report('annotations');
  const annotations: Partial<ToolAnnotations> | undefined = tool.annotations;
  const missing = HINTS.filter((hint) => typeof annotations?.[hint] !== 'boolean');
  if (missing.length > 0) error(where, `set ${missing.join(', ')} to true or false`);
  if (annotations?.readOnlyHint === true && annotations.destructiveHint === true) {
    error(where, 'readOnlyHint and destructiveHint are both true; pick one');
  }
}

function checkOutput(tool: ToolDefinition, where: string, report: Report): void {
  if (Object.keys(tool.output ?? {}).length === 0) {
    report('output').error(where, 'declares no output fields; give it an output shape for what it returns');
  }
  // A model reads the description to know what comes back: an image it was not told of is easily missed.
  if (tool.images && !/\b(image|images|picture|png|chart|diagram|plot)\b/i.test(tool.description ?? '')) {
    report('output').warn(
      where,
      'may attach images (images: true); say in the description what image it returns',
    );
  }
}

/** Name, descriptions, and every backticked tool name in the rendered text exists on the server. */
export async function checkPrompt(
  prompt: PromptDefinition,
  server: string,
  toolNames: ReadonlySet<string>,
  ctx: BaseContext<unknown>,
  report: Report,
  /** Whether a resource of the server answers this URI (arguments rendered as `<name>`). */
  isResourceUri: (uri: string) => boolean = () => true,
): Promise<void> {
  const { error, warn } = report('prompts');
  const where = `${server}/prompt:${prompt.name}`;
  if (!PROMPT_NAME.test(prompt.name)) {
    error(where, `name must be kebab-case matching ${PROMPT_NAME.source}`);
  }
  if (!prompt.description?.trim()) error(where, 'has no description');
  const args = Object.entries(prompt.args ?? {});
  for (const [name, arg] of args) {
    if (!arg?.description?.trim()) error(`${where}.${name}`, `argument \`${name}\` has no description`);
  }
  // Checked before rendering, so a misspelt tool (which would hide the prompt at run time) is caught even
  // when the prompt cannot render.
  for (const name of prompt.uses ?? []) {
    if (!toolNames.has(name))
      error(where, `lists \`${name}\` in \`uses\`, which is not a tool of this server`);
  }
  let text: string;
  try {
    const placeholders = Object.fromEntries(args.map(([name]) => [name, `<${name}>`]));
    const result = await prompt.messages(placeholders, ctx);
    const messages = typeof result === 'string' ? [{ text: result }] : result;
    text = messages.map((message) => ('text' in message ? message.text : '')).join('\n');
    for (const message of messages) {
      if ('resource' in message && !isResourceUri(message.resource)) {
        error(where, `embeds ${message.resource}, which no resource of this server answers`);
      }
    }
  } catch (error) {
    warn(where, `could not render, so the tools it names were not checked: ${errorMessage(error)}`);
    return;
  }
  // A backticked word is a tool when the server has one by that name, or when it looks like one (snake_case
  // with an underscore); a `slug` or `kebab-case` word in the text is not taken for one.
  const named = new Set(
    Array.from(text.matchAll(/`([^`\s]+)`/g), (match) => match[1] ?? '').filter(
      (name) => toolNames.has(name) || (TOOL_NAME.test(name) && name.includes('_')),
    ),
  );
  for (const name of named) {
    if (!toolNames.has(name)) error(where, `names \`${name}\`, which is not a tool of this server`);
  }
  // A prompt without `uses` is offered even when a tool it names is not (a write tool under --read-only).
  const uses = new Set(prompt.uses ?? []);
  for (const name of named) {
    if (toolNames.has(name) && !uses.has(name))
      error(where, `names \`${name}\` but does not list it in \`uses\``);
  }
  for (const name of uses) {
    if (toolNames.has(name) && !named.has(name)) {
      error(where, `lists \`${name}\` in \`uses\` but never names it`);
    }
  }
}

/** Description, mimeType, and each template variable documented and completable. */
export function checkResource(resource: ResourceDefinition, server: string, report: Report): void {
  const { error, warn } = report('resources');
  const where = `${server}/resource:${resource.uri}`;
  if (!resource.description?.trim()) error(where, 'has no description');
  if (!resource.mimeType?.trim()) error(where, 'has no mimeType (e.g. application/json)');
  else if (resource.binary && isTextType(resource.mimeType)) {
    error(
      where,
      `is binary, but its mimeType ${resource.mimeType} is text: name what the bytes are (e.g. image/png)`,
    );
  } else if (!resource.binary && !isTextType(resource.mimeType)) {
    warn(where, `has mimeType ${resource.mimeType}, which is not text: declare binary: true and read bytes`);
  }
  const inTemplate = templateVariables(resource.uri);
  const declared = resource.variables ?? {};
  for (const name of inTemplate) {
    const variable = declared[name];
    if (!variable?.description?.trim()) {
      error(where, `template variable \`${name}\` has no description in variables`);
    }
    if (!variable?.complete) {
      warn(where, `template variable \`${name}\` has no complete function`);
    }
  }
  for (const name of Object.keys(declared)) {
    if (!inTemplate.includes(name)) {
      warn(where, `variables declares \`${name}\`, which is not in the URI`);
    }
  }
}

/** A MIME type whose content is text: text/*, JSON, XML (SVG too), JavaScript, YAML, CSV. */
export function isTextType(mimeType: string): boolean {
  const type = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  return (
    type.startsWith('text/') ||
    /[/+](json|xml|yaml)$/.test(type) ||
    /^application\/(javascript|ecmascript|x-ndjson|x-www-form-urlencoded|graphql|sql|toml|x-sh)$/.test(type)
  );
}

/** Variable names of an RFC 6570 template: `{a}`, `{+a}`, `{?a,b}`, `{a*}`, `{a:3}`. */
export function templateVariables(uri: string): string[] {
  const names = Array.from(uri.matchAll(/\{([^}]*)\}/g), (match) => match[1] ?? '')
    .flatMap((expression) => expression.replace(/^[+#./;?&]/, '').split(','))
    .map((name) => name.trim().replace(/(\*|:\d+)$/, ''))
    .filter(Boolean);
  return [...new Set(names)];
}

export function checkBudget(size: ToolsListSize, budget: number, server: string, report: Report): void {
  if (size.tokens <= budget) return;
  const largest = [...size.perTool]
    .sort((a, b) => b.tokens - a.tokens)
    .slice(0, 3)
    .map((tool) => `${tool.name} ${tool.tokens}`)
    .join(', ');
  report('budget').error(
    server,
    `tools/list is ${size.tokens} tokens (${size.chars} chars / 4), over the budget of ${budget}; largest: ${largest}`,
  );
}
