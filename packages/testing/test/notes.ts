import {
  definePrompt,
  defineResource,
  defineServer,
  defineTool,
  InvalidInput,
  NotFound,
  type ServerDefinition,
  z,
} from '@shipyard/core';

/** A tiny in-memory notes server: the well-behaved subject of these tests. */
interface Note {
  key: string;
  title: string;
  tags: string[];
}

const NoteShape = z.object({
  key: z.string().describe('The note key, e.g. NOTE-1'),
  title: z.string().describe('The note title'),
  tags: z.array(z.string()).describe('Labels attached to the note'),
});

export const createNoteInput = {
  title: z.string().min(1).max(200).describe('Short text of the note, 1-200 characters'),
  limit: z
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe('How many recent notes to return with it (1-100, default 5)'),
  tags: z
    .array(z.string().min(1).max(50))
    .max(20)
    .default([])
    .describe('Labels for grouping notes, e.g. ["idea"]'),
};

export const searchNotesInput = {
  query: z
    .string()
    .max(500)
    .describe('Words to find in note titles; matched as plain text, case-insensitive'),
  limit: z.int().min(1).max(100).optional().describe('Maximum number of notes to return (1-100, default 20)'),
};

const ANNOTATIONS_READ = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

type SearchHandler = (notes: Note[], query: string) => Note[];

const plainSearch: SearchHandler = (notes, query) =>
  notes.filter((note) => note.title.toLowerCase().includes(query.toLowerCase()));

/** The notes server; `search` replaces the search implementation (to build badly-behaved servers). */
export function notesServer(search: SearchHandler = plainSearch): ServerDefinition<{ notes: Note[] }> {
  const notes: Note[] = [
    { key: 'NOTE-1', title: 'Ship the release', tags: ['work'] },
    { key: 'NOTE-2', title: 'Buy coffee', tags: [] },
  ];
  const summary = (note: Note) => ({ key: note.key, title: note.title, tags: note.tags });
  return defineServer({
    name: 'notes',
    version: '0.0.0',
    deps: { notes },
    tools: [
      defineTool({
        name: 'create_note',
        title: 'Create note',
        description:
          'Create a note with a title and optional tags. Returns the new note with its key (e.g. NOTE-3) and ' +
          'the most recent notes. Use this when the user wants to remember something; call search_notes ' +
          'first to avoid duplicates.',
        input: createNoteInput,
        output: { note: NoteShape, recent: z.array(NoteShape).describe('The newest notes, newest first') },
        annotations: {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
        handler(input) {
          const title = input.title.trim();
          if (title.length === 0)
            throw new InvalidInput('`title` must not be blank', { hint: 'Give the note some text' });
          const note = { key: `NOTE-${notes.length + 1}`, title, tags: input.tags };
          notes.push(note);
          return {
            note,
            recent: notes
              .slice(-(input.limit ?? 5))
              .reverse()
              .map(summary),
          };
        },
      }),
      defineTool({
        name: 'search_notes',
        title: 'Search notes',
        description:
          'Search notes by words in their title. Returns matching notes (key, title, tags) and the total ' +
          'count. Use this to find a note before creating a new one or to answer what the user noted.',
        input: searchNotesInput,
        output: {
          items: z.array(NoteShape).describe('Matching notes'),
          total: z.int().describe('Number of matches'),
        },
        annotations: ANNOTATIONS_READ,
        handler(input) {
          const found = search(notes, input.query);
          return { items: found.slice(0, input.limit ?? 20).map(summary), total: found.length };
        },
      }),
    ],
    resources: [
      defineResource({
        uri: 'notes://recent',
        name: 'recent-notes',
        description: 'The five newest notes as JSON, newest first',
        mimeType: 'application/json',
        read: () => notes.slice(-5).reverse(),
      }),
      defineResource({
        uri: 'notes://{key}',
        name: 'note',
        description: 'One note by key, as JSON',
        mimeType: 'application/json',
        variables: {
          key: {
            description: 'The note key, e.g. NOTE-1',
            complete: (v) => notes.map((n) => n.key).filter((k) => k.startsWith(v)),
          },
        },
        list: () => notes.map((n) => ({ uri: `notes://${n.key}`, name: n.title })),
        read: ({ key }) => {
          const note = notes.find((n) => n.key === key);
          if (!note) throw new NotFound(`No note ${key}`, { hint: 'Call search_notes to find the key' });
          return note;
        },
      }),
    ],
    prompts: [
      definePrompt({
        name: 'review-notes',
        description: 'Review the notes on a topic and suggest which to merge',
        args: { topic: { description: 'The words to search notes for', required: true } },
        uses: ['search_notes'],
        messages: ({ topic }) =>
          `Call \`search_notes\` with the query "${topic}", then list duplicates and suggest merged titles.`,
      }),
    ],
  });
}

/** Pretends to build SQL from the query: quotes and brackets blow up with a raw driver error. */
export const sqlSearch: SearchHandler = (notes, query) => {
  if (/["'(]/.test(query)) throw new Error(`SQLITE_ERROR: near "${query.slice(0, 20)}": syntax error`);
  return plainSearch(notes, query);
};

/** Refuses bad syntax with the right code, but leaks the driver message into the error text. */
export const leakySearch: SearchHandler = (notes, query) => {
  if (query.includes('(')) throw new InvalidInput(`SQLITE_ERROR: fts5: syntax error near "("`);
  return plainSearch(notes, query);
};
