import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import {
  createLogger,
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  listedWithoutBounds,
  type PromptDefinition,
  type ResourceDefinition,
  Runtime,
  type ServerDefinition,
  type ToolDefinition,
  z,
} from '../src/index.js';
import {
  type Finding,
  formatFindings,
  lintServer,
  lintServers,
  type Rule,
  renderReference,
  type Severity,
  templateVariables,
  toolsListSize,
} from '../src/lint/index.js';
import { boundsLength, isTextType } from '../src/lint/rules.js';

const HINTS = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const createNote = defineTool({
  name: 'create_note',
  title: 'Create note',
  description:
    'Create a note with a title and a body. Returns the note with its slug. ' +
    'Use this when the user wants to remember something; call `get_note` to read it back.',
  input: {
    title: z.string().max(200).describe('Short title of the note, shown in lists'),
    body: z.string().max(10_000).optional().describe('Markdown text of the note'),
    pinned: z.boolean().default(false).describe('Keep the note at the top of lists'),
  },
  output: { slug: z.string(), title: z.string() },
  annotations: HINTS,
  handler: ({ title }) => ({ slug: 'a-note', title }),
});

const getNote = defineTool({
  name: 'get_note',
  title: 'Get note',
  description:
    'Read one note by its slug. Returns the title, body and tags. Use it after create_note or search.',
  input: { slug: z.string().max(100).nullable().describe('Slug of the note, e.g. shopping-list') },
  output: { title: z.string(), body: z.string() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: () => ({ title: 't', body: 'b' }),
});

const summarize = definePrompt({
  name: 'summarize-notes',
  description: 'Summarize the notes about a topic',
  args: { topic: { description: 'What the notes are about', required: true } },
  uses: ['get_note'],
  messages: ({ topic }) => `Find notes about ${topic}, call \`get_note\` on each, then summarize them.`,
});

const noteResource = defineResource({
  uri: 'notes://{slug}',
  name: 'note',
  description: 'One note as Markdown',
  mimeType: 'text/markdown',
  variables: { slug: { description: 'Slug of the note', complete: () => ['a-note'] } },
  read: () => '# A note',
});

function server(overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  return defineServer({
    name: 'notes',
    version: '1.0.0',
    deps: {},
    tools: [createNote, getNote],
    prompts: [summarize],
    resources: [noteResource, { ...noteResource, uri: 'notes://index', variables: undefined }],
    ...overrides,
  });
}

/** The good server with its first tool changed. */
const withTool = (overrides: Partial<ToolDefinition>) =>
  server({ tools: [{ ...createNote, ...overrides }, getNote] });
const withPrompt = (overrides: Partial<PromptDefinition>) =>
  server({ prompts: [{ ...summarize, ...overrides }] });
const withResource = (overrides: Partial<ResourceDefinition>) =>
  server({ resources: [{ ...noteResource, ...overrides }] });

async function expectFinding(
  definition: ServerDefinition | Promise<Finding[]>,
  rule: Rule,
  severity: Severity,
  where: string,
  message?: RegExp,
): Promise<Finding[]> {
  const findings = 'name' in definition ? await lintServer(definition) : await definition;
  expect(findings).toContainEqual(
    expect.objectContaining({
      rule,
      severity,
      where,
      ...(message ? { message: expect.stringMatching(message) } : {}),
    }),
  );
  return findings;
}

describe('lintServer', () => {
  it('finds nothing in a server that follows every rule', async () => {
    expect(await lintServer(server())).toEqual([]);
    expect(await lintServers([server(), server({ name: 'other', tools: [], prompts: [] })])).toEqual([]);
  });

  describe('tool-name', () => {
    it('rejects names that are not snake_case', async () => {
      await expectFinding(
        withTool({ name: 'CreateNote' }),
        'tool-name',
        'error',
        'notes/CreateNote',
        /must match/,
      );
      await expectFinding(withTool({ name: 'mk' }), 'tool-name', 'error', 'notes/mk');
    });

    it('warns when the first word is not a verb', async () => {
      const findings = await expectFinding(
        withTool({ name: 'note_create' }),
        'tool-name',
        'warning',
        'notes/note_create',
        /"note" is not/,
      );
      expect(findings).toHaveLength(1);
    });

    it('takes record as a verb (record_snippet_use)', async () => {
      const findings = await lintServer(withTool({ name: 'record_note_use' }));
      expect(findings.filter((f) => f.rule === 'tool-name')).toEqual([]);
    });

    it.each(['forecast_note_count', 'ingest_note_file', 'rerun_note_job'])(
      'takes forecast, ingest and rerun as verbs (%s)',
      async (name) => {
        const findings = await lintServer(withTool({ name }));
        expect(findings.filter((f) => f.rule === 'tool-name')).toEqual([]);
      },
    );

    it('takes bulk_ before a verb (bulk_update_notes), not before another word', async () => {
      const findings = await lintServer(withTool({ name: 'bulk_update_notes' }));
      expect(findings.filter((f) => f.rule === 'tool-name')).toEqual([]);
      await expectFinding(
        withTool({ name: 'bulk_notes' }),
        'tool-name',
        'warning',
        'notes/bulk_notes',
        /"notes" is not/,
      );
    });

    it('rejects two tools with the same name on one server', async () => {
      await expectFinding(
        server({ tools: [createNote, createNote] }),
        'tool-name',
        'error',
        'notes/create_note',
        /2 times/,
      );
    });
  });

  describe('description', () => {
    it('rejects a vague one-liner', async () => {
      const findings = await lintServer(withTool({ description: 'Ticket creation tool' }));
      const errors = findings
        .filter((f) => f.rule === 'description' && f.severity === 'error')
        .map((f) => f.message);
      expect(errors).toEqual([
        expect.stringMatching(/is 20 characters/),
        expect.stringMatching(/returns/),
        expect.stringMatching(/when to use/),
      ]);
      expect(findings.every((f) => f.where === 'notes/create_note')).toBe(true);
    });

    it('rejects one over 1024 characters', async () => {
      const description = `${createNote.description} ${'More words. '.repeat(90)}`;
      await expectFinding(
        withTool({ description }),
        'description',
        'error',
        'notes/create_note',
        /keep it between/,
      );
    });

    it('requires what it returns and when to use it', async () => {
      const noReturn =
        'Create a note with a title and a body. Use this when the user wants to remember something.';
      await expectFinding(
        withTool({ description: noReturn }),
        'description',
        'error',
        'notes/create_note',
        /returns/,
      );
      const noWhen = 'Create a note with a title and a body. Returns the note with its slug and its title.';
      await expectFinding(
        withTool({ description: noWhen }),
        'description',
        'error',
        'notes/create_note',
        /when to use/,
      );
    });

    it('warns when it does not start with the action', async () => {
      for (const start of [
        'This tool creates',
        'A tool that creates',
        'create_note creates',
        'The tool creates',
      ]) {
        const description = `${start} a note with a title. Returns the note. Use this to remember things.`;
        await expectFinding(
          withTool({ description }),
          'description',
          'warning',
          'notes/create_note',
          /action/,
        );
      }
    });

    it('accepts one that starts with the tool name in words', async () => {
      const description = 'Create note with a title. Returns the note. Use this to remember things.';
      expect(await lintServer(withTool({ description }))).toEqual([]);
    });

    it('warns when it does not mention the inputs', async () => {
      const description =
        'Create a note. Returns the note and its slug. Use this to remember something important.';
      await expectFinding(
        withTool({ description }),
        'description',
        'warning',
        'notes/create_note',
        /title, body/,
      );
      const input = { note_body: z.string().max(10_000).describe('Text of the new note') };
      await expectFinding(withTool({ description, input }), 'description', 'warning', 'notes/create_note');
      const mentioned = description.replace('a note', 'a note from its note body');
      expect(await lintServer(withTool({ description: mentioned, input }))).toEqual([]);
    });
  });

  describe('parameters', () => {
    it('requires a description on every input field', async () => {
      const input = { ...createNote.input, title: z.string().max(200) };
      await expectFinding(
        withTool({ input }),
        'parameters',
        'error',
        'notes/create_note.title',
        /no \.describe/,
      );
    });

    it('rejects a description that only repeats the name', async () => {
      const input = { ...createNote.input, pinned: z.boolean().describe('Pinned.') };
      await expectFinding(withTool({ input }), 'parameters', 'error', 'notes/create_note.pinned', /own name/);
      const snake = { note_title: z.string().max(200).optional().describe('Note title') };
      await expectFinding(withTool({ input: snake }), 'parameters', 'error', 'notes/create_note.note_title');
    });

    it('rejects a description that is too short', async () => {
      const input = { ...createNote.input, body: z.string().max(10_000).describe('Text') };
      await expectFinding(withTool({ input }), 'parameters', 'error', 'notes/create_note.body', /too short/);
    });
  });

  describe('parameters: bounds', () => {
    it('requires a .max() on every string and list, however deep, unless an enum or pattern holds it', async () => {
      const input = {
        ...createNote.input,
        tags: z.array(z.string().max(30)).describe('Tags to file the note under'),
        links: z
          .array(z.object({ url: z.string().describe('Where it points') }))
          .max(10)
          .describe('Links the note keeps'),
        colour: z.enum(['red', 'blue']).describe('Colour of the note in lists'),
        code: z
          .string()
          .regex(/^[A-Z]{3}$/)
          .describe('Three-letter code of the shelf'),
        due: z.iso.date().describe('Day the note is due, YYYY-MM-DD'),
        // A format alone is no bound, nor a pattern with + or * (zod's email pattern, a datetime's fraction).
        owner: z.email().describe('Email address of the owner'),
        source: z.url().describe('Web page the note came from'),
        seen: z.iso.datetime().describe('When the note was last read'),
        counts: z.record(z.string(), z.number()).describe('Counts by word, for the index'),
        pair: z.tuple([z.string().max(5), z.string()]).describe('Shelf and slot of the paper copy'),
      };
      const findings = (await lintServer(withTool({ input }))).filter((f) => f.rule === 'parameters');
      const unbounded = (path: string, kind = 'a string') =>
        `\`${path}\` is ${kind} with no .max(); cap it, so one call cannot send megabytes`;
      expect(findings.map((f) => [f.where, f.message])).toEqual([
        ['notes/create_note.tags', unbounded('tags', 'a list')],
        ['notes/create_note.links', unbounded('links[].url')],
        ['notes/create_note.owner', unbounded('owner')],
        ['notes/create_note.source', unbounded('source')],
        ['notes/create_note.seen', unbounded('seen')],
        ['notes/create_note.counts', unbounded('counts (a key)')],
        ['notes/create_note.pair', unbounded('pair[1]')],
      ]);
    });

    it('checks the bound the runtime validates, also of a field listed without it', async () => {
      const input = {
        ...createNote.input,
        shelf: listedWithoutBounds(z.string().max(24)).describe('Shelf key, e.g. A-12'),
        slot: listedWithoutBounds(z.string()).describe('Slot key, e.g. 3b'),
      };
      const findings = (await lintServer(withTool({ input }))).filter((f) => f.rule === 'parameters');
      expect(findings.map((f) => [f.where, f.message])).toEqual([
        [
          'notes/create_note.slot',
          '`slot` is a string with no .max(); cap it, so one call cannot send megabytes',
        ],
      ]);
    });

    it('counts a pattern as a bound only when it bounds the length', () => {
      for (const bounded of ['^[A-Z]{3}$', '^(a|bc)-\\d{1,4}$', '^[*+]{2}\\*$', '^x{2,5}$'])
        expect(boundsLength(bounded), bounded).toBe(true);
      for (const open of ['[A-Z]{3}', '^[A-Z]{3}', '^a|b$', '^a+$', '^a*$', '^a{2,}$', '^a\\$', '^[a$'])
        expect(boundsLength(open), open).toBe(false);
    });
  });

  describe('annotations', () => {
    it('requires all four hints as booleans', async () => {
      const annotations = {
        readOnlyHint: false,
        destructiveHint: false,
      } as unknown as ToolDefinition['annotations'];
      await expectFinding(
        withTool({ annotations }),
        'annotations',
        'error',
        'notes/create_note',
        /idempotentHint, openWorldHint/,
      );
      await expectFinding(withTool({ annotations: undefined }), 'annotations', 'error', 'notes/create_note');
    });

    it('rejects read-only and destructive at once', async () => {
      const annotations = { ...HINTS, readOnlyHint: true, destructiveHint: true };
      await expectFinding(
        withTool({ annotations }),
        'annotations',
        'error',
        'notes/create_note',
        /both true/,
      );
    });
  });

  describe('output', () => {
    it('requires an output schema with a field', async () => {
      await expectFinding(
        withTool({ output: {} }),
        'output',
        'error',
        'notes/create_note',
        /no output fields/,
      );
    });

    it('asks a tool that may attach images to say so in its description', async () => {
      const findings = await expectFinding(
        withTool({ images: true }),
        'output',
        'warning',
        'notes/create_note',
        /images: true/,
      );
      expect(findings.filter((f) => f.rule === 'output')).toHaveLength(1);
      const told = `${createNote.description} Also returns a PNG chart of the notes.`;
      const clean = await lintServer(withTool({ images: true, description: told }));
      expect(clean.filter((f) => f.rule === 'output')).toEqual([]);
    });
  });

  describe('prompts', () => {
    const where = 'notes/prompt:summarize-notes';

    it('rejects a backticked tool name the server does not have', async () => {
      const messages = () => [{ role: 'user' as const, text: 'Call `search_notes`, then `get_note`.' }];
      const findings = await expectFinding(
        withPrompt({ messages }),
        'prompts',
        'error',
        where,
        /`search_notes`/,
      );
      expect(findings).toHaveLength(1);
    });

    it('checks `uses` against the tools the text names, both ways', async () => {
      expect(await lintServer(withPrompt({ uses: ['get_note'] }))).toEqual([]);
      const missing = await expectFinding(withPrompt({ uses: [] }), 'prompts', 'error', where, /`get_note`/);
      expect(missing[0]?.message).toContain('does not list it in `uses`');
      // Without `uses` at all the prompt would be offered even where get_note is not: the same error.
      const none = await expectFinding(
        withPrompt({ uses: undefined }),
        'prompts',
        'error',
        where,
        /`get_note`/,
      );
      expect(none[0]?.message).toContain('does not list it in `uses`');
      const extra = await expectFinding(
        withPrompt({ uses: ['get_note', 'create_note'] }),
        'prompts',
        'error',
        where,
        /`create_note` in `uses` but never names it/,
      );
      expect(extra).toHaveLength(1);
      // A misspelt tool is caught even when the prompt cannot render.
      const rejects = async () => {
        throw new Error('offline');
      };
      await expectFinding(
        withPrompt({ uses: ['get_notes'], messages: rejects }),
        'prompts',
        'error',
        where,
        /`get_notes` in `uses`, which is not a tool/,
      );
    });

    it('takes a backticked name without an underscore for a tool when the server has that tool', async () => {
      const search = { ...getNote, name: 'search' };
      const messages = () => 'Call `search`, then `get_note`; pass the `slug`.';
      const prompt = { ...summarize, uses: ['search', 'get_note'], messages };
      expect(await lintServer(server({ tools: [createNote, getNote, search], prompts: [prompt] }))).toEqual(
        [],
      );
      const missing = await expectFinding(
        server({ tools: [createNote, getNote, search], prompts: [{ ...prompt, uses: ['get_note'] }] }),
        'prompts',
        'error',
        where,
        /names `search` but does not list it/,
      );
      expect(missing).toHaveLength(1);
    });

    it('ignores backticked words that are not tool names', async () => {
      const messages = () =>
        'Read `notes://index`, pass `slug`, use `kebab-case` and `Title_Case` as you like.';
      expect(await lintServer(withPrompt({ messages, uses: [] }))).toEqual([]);
    });

    it('checks that an embedded resource is one the server answers', async () => {
      const embedding = (uri: string) => () => [
        { role: 'user' as const, text: 'Summarise it with `get_note`.' },
        { role: 'user' as const, resource: uri },
      ];
      expect(await lintServer(withPrompt({ messages: embedding('notes://<topic>') }))).toEqual([]);
      expect(await lintServer(withPrompt({ messages: embedding('notes://index') }))).toEqual([]);
      await expectFinding(
        lintServer(withPrompt({ messages: embedding('note://<topic>') })),
        'prompts',
        'error',
        'notes/prompt:summarize-notes',
        /embeds note:\/\/<topic>, which no resource of this server answers/,
      );
    });

    it('renders with a placeholder for every argument and the server deps', async () => {
      const seen: unknown[] = [];
      const deps = { db: 'the db' };
      const messages: PromptDefinition['messages'] = async (args, ctx) => {
        seen.push(args, ctx.deps, ctx.user);
        return 'Call `get_note`.';
      };
      expect(await lintServer(server({ deps, prompts: [{ ...summarize, messages }] }))).toEqual([]);
      expect(seen).toEqual([{ topic: '<topic>' }, deps, undefined]);
    });

    it('warns when the prompt cannot be rendered', async () => {
      const throws = () => {
        throw new Error('no database');
      };
      await expectFinding(
        withPrompt({ messages: throws }),
        'prompts',
        'warning',
        where,
        /could not render.*no database/,
      );
      const rejects = async () => Promise.reject(new Error('offline'));
      await expectFinding(withPrompt({ messages: rejects }), 'prompts', 'warning', where, /offline/);
    });

    it('requires a description, argument descriptions and a kebab-case name', async () => {
      await expectFinding(withPrompt({ description: ' ' }), 'prompts', 'error', where, /no description/);
      const args = { topic: { description: '' } };
      await expectFinding(withPrompt({ args }), 'prompts', 'error', `${where}.topic`, /argument `topic`/);
      await expectFinding(
        withPrompt({ name: 'summarizeNotes' }),
        'prompts',
        'error',
        'notes/prompt:summarizeNotes',
      );
    });
  });

  describe('resources', () => {
    const where = 'notes/resource:notes://{slug}';

    it('requires a description and a mimeType', async () => {
      await expectFinding(withResource({ description: '' }), 'resources', 'error', where, /no description/);
      await expectFinding(withResource({ mimeType: '' }), 'resources', 'error', where, /no mimeType/);
    });

    it('requires a binary resource to have a type that is not text, and a text resource one that is', async () => {
      for (const mimeType of ['text/plain', 'application/json', 'image/svg+xml', 'text/csv; charset=utf-8']) {
        await expectFinding(
          withResource({ binary: true, mimeType }),
          'resources',
          'error',
          where,
          /is binary/,
        );
      }
      await expectFinding(
        withResource({ mimeType: 'image/png' }),
        'resources',
        'warning',
        where,
        /binary: true/,
      );
      for (const mimeType of ['image/png', 'application/pdf', 'application/octet-stream']) {
        const findings = await lintServer(withResource({ binary: true, mimeType }));
        expect(findings.filter((f) => f.rule === 'resources' && /binary|text/.test(f.message))).toEqual([]);
      }
      expect(isTextType('application/vnd.api+json')).toBe(true);
      expect(isTextType('image/png')).toBe(false);
    });

    it('requires a description for each template variable and warns without completion', async () => {
      await expectFinding(
        withResource({ variables: {} }),
        'resources',
        'error',
        where,
        /`slug` has no description/,
      );
      const variables = { slug: { description: 'Slug of the note' } };
      await expectFinding(
        withResource({ variables }),
        'resources',
        'warning',
        where,
        /`slug` has no complete/,
      );
    });

    it('warns about variables the URI does not have', async () => {
      const variables = { ...noteResource.variables, tag: { description: 'A tag of the note' } };
      await expectFinding(
        withResource({ variables }),
        'resources',
        'warning',
        where,
        /`tag`, which is not in the URI/,
      );
    });

    it('reads RFC 6570 variable names', () => {
      expect(templateVariables('notes://{slug}')).toEqual(['slug']);
      expect(templateVariables('files://{+path}{?q,limit}{#frag}{/list*}{x:3}')).toEqual([
        'path',
        'q',
        'limit',
        'frag',
        'list',
        'x',
      ]);
      expect(templateVariables('notes://index')).toEqual([]);
    });
  });

  describe('budget', () => {
    it('measures what tools/list sends', async () => {
      const definition = server();
      const runtime = new Runtime(definition, { logger: createLogger('notes', { level: 'silent' }) });
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      const sent: JSONRPCMessage[] = [];
      const send = serverTransport.send.bind(serverTransport);
      serverTransport.send = (message, options) => {
        sent.push(message);
        return send(message, options);
      };
      await runtime.connect(serverTransport);
      const client = new Client({ name: 'lint-test', version: '0.0.0' });
      await client.connect(clientTransport);
      await client.listTools();
      await client.close();
      await runtime.close();
      const answer = sent.at(-1) as { result: unknown };
      const size = toolsListSize(definition);
      expect(size.chars).toBe(JSON.stringify(answer.result).length);
      expect(size.tokens).toBe(Math.ceil(size.chars / 4));
      expect(size.perTool.map((tool) => tool.name)).toEqual(['create_note', 'get_note']);
    });

    it('rejects a tools/list over the budget and names the largest tools', async () => {
      const { tokens } = toolsListSize(server());
      const where = 'notes';
      const message = new RegExp(
        `${tokens} tokens .* budget of 100; largest: create_note \\d+, get_note \\d+$`,
      );
      await expectFinding(lintServer(server(), { tokenBudget: 100 }), 'budget', 'error', where, message);
      await expectFinding(server({ tokenBudget: tokens - 1 }), 'budget', 'error', where);
      expect(await lintServer(server({ tokenBudget: tokens }))).toEqual([]);
      expect(await lintServer(server({ tokenBudget: 1 }), { tokenBudget: tokens })).toEqual([]);
    });
  });

  describe('unique-name', () => {
    it('rejects a tool name used by two servers', async () => {
      const findings = await lintServers([server({ name: 'a' }), server({ name: 'b', tools: [getNote] })]);
      expect(findings).toEqual([
        {
          rule: 'unique-name',
          severity: 'error',
          where: 'b/get_note',
          message: expect.stringMatching(/servers a and b/),
        },
      ]);
    });

    it('leaves duplicates within one server to tool-name', async () => {
      const findings = await lintServers([server({ tools: [createNote, createNote, getNote] })]);
      expect(findings.map((f) => f.rule)).toEqual(['tool-name']);
    });
  });
});

describe('formatFindings', () => {
  it('prints one line per finding with the severity, where and rule', () => {
    const findings: Finding[] = [
      { rule: 'output', severity: 'error', where: 'notes/create_note', message: 'declares no output fields' },
      {
        rule: 'tool-name',
        severity: 'warning',
        where: 'notes/note_create',
        message: 'should start with a verb',
      },
    ];
    expect(formatFindings(findings)).toBe(
      'error notes/create_note output: declares no output fields\n' +
        'warn  notes/note_create tool-name: should start with a verb',
    );
  });
});

describe('renderReference', () => {
  it('shows that a tool returns images and that a resource is binary', () => {
    const reference = renderReference(
      server({
        tools: [{ ...createNote, images: true }, getNote],
        resources: [
          noteResource,
          { ...noteResource, uri: 'notes://{slug}/chart', mimeType: 'image/png', binary: true },
        ],
      }),
    );
    expect(reference).toContain('| `create_note` | additive; returns images |');
    expect(reference).toContain('| `get_note` | read-only |');
    expect(reference).toContain('| `notes://{slug}` | text/markdown |');
    expect(reference).toContain('| `notes://{slug}/chart` | image/png (binary) |');
  });
});
