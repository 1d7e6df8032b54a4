import { InvalidInput, isShipyardError, z } from '@shipyard/core';
import { tool } from '../deps.js';
import { FORMATS, type ImportEntry, parseImport, scopeLanguage } from '../domain/formats.js';
import { findLanguage } from '../domain/languages.js';
import { checkFields, normaliseTags } from '../domain/model.js';
import { fieldInputs, languageOf, tagsOf } from './shared.js';

/** Entries of each kind listed in the answer; the counts are of all. */
const LISTED = 100;
/** Progress is sent every this many entries. */
const PROGRESS_EVERY = 50;

export default tool({
  name: 'import_snippets',
  title: 'Import snippets',
  description:
    'Import snippets from a VS Code snippets file (format vscode) or an export of this server (format ' +
    'shipyard, with versions and uses). Each entry is saved on its own: a bad one is rejected with a ' +
    'reason and the rest go on; code already saved counts as a duplicate. Returns counts and the first ' +
    'created, duplicate and rejected entries. Use this to bring in a snippet file.',
  input: {
    format: z.enum(FORMATS).describe('vscode or shipyard'),
    content: z.string().min(1).max(20_000_000).describe('The file content (JSON)'),
    language: fieldInputs.language.optional().describe('Language of VS Code entries without scope'),
    tags: fieldInputs.tags.optional().describe('Tags added to every VS Code entry'),
  },
  output: {
    created: z.number().int(),
    duplicates: z.number().int(),
    rejected: z.number().int(),
    created_ids: z.array(z.object({ id: z.string(), title: z.string() })),
    duplicate_entries: z.array(z.object({ entry: z.string(), duplicate_of: z.string() })),
    rejected_entries: z.array(z.object({ entry: z.string(), reason: z.string() })),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(input, ctx) {
    let entries: ImportEntry[];
    try {
      entries = parseImport(input.format, input.content);
    } catch (error) {
      throw new InvalidInput(`The file cannot be read: ${(error as Error).message}`, {
        hint: 'Pass the whole file as content, with the format it is in (vscode or shipyard)',
      });
    }
    const extraTags = tagsOf(input.tags);
    const fallback =
      input.language === undefined ? undefined : (await languageOf(input.language, '', null)).language;
    const created: { id: string; title: string }[] = [];
    const duplicates: { entry: string; duplicate_of: string }[] = [];
    const rejected: { entry: string; reason: string }[] = [];
    const changed = new Set<string>();
    for (const [i, entry] of entries.entries()) {
      if (entries.length > PROGRESS_EVERY && i % PROGRESS_EVERY === 0) {
        await ctx.progress(i, entries.length, `${i} of ${entries.length} entries`);
      }
      if (ctx.signal.aborted) break;
      try {
        if (entry.kind === 'rejected') {
          rejected.push({ entry: entry.name, reason: entry.reason });
        } else if (entry.kind === 'fields') {
          const scoped = entry.scope ? scopeLanguage(entry.scope) : undefined;
          const named = scoped ? await findLanguage(scoped) : undefined;
          const language =
            named ?? fallback ?? (await languageOf(undefined, entry.fields.code, null)).language;
          const fields = checkFields({
            ...entry.fields,
            language,
            tags: [...entry.fields.tags, ...extraTags],
          });
          const saved = await ctx.deps.store.saveSnippet(fields);
          for (const uri of saved.changed) changed.add(uri);
          if (saved.duplicate) duplicates.push({ entry: entry.name, duplicate_of: saved.snippet.id });
          else created.push({ id: saved.snippet.id, title: saved.snippet.title });
        } else {
          const record = { ...entry.record, tags: normaliseTags(entry.record.tags) };
          checkFields(record);
          const saved = await ctx.deps.store.importRecord(record);
          for (const uri of saved.changed) changed.add(uri);
          if (saved.duplicate) duplicates.push({ entry: entry.name, duplicate_of: saved.id });
          else created.push({ id: saved.id, title: record.title });
        }
      } catch (error) {
        // A refusal of one entry (bad tags, blank code) is reported; anything else is a fault of the server.
        if (!isShipyardError(error)) throw error;
        rejected.push({ entry: entry.name, reason: error.message });
      }
    }
    if (entries.length > PROGRESS_EVERY) await ctx.progress(entries.length, entries.length, 'done');
    ctx.changed(...changed);
    return {
      created: created.length,
      duplicates: duplicates.length,
      rejected: rejected.length,
      created_ids: created.slice(0, LISTED),
      duplicate_entries: duplicates.slice(0, LISTED),
      rejected_entries: rejected.slice(0, LISTED),
    };
  },
});
