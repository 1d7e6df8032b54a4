import { InvalidInput, z } from '@shipyard/core';
import { type Guess, guessLanguage, resolveLanguage } from '../domain/languages.js';
import {
  MAX_CODE_CHARS,
  MAX_DESCRIPTION_CHARS,
  MAX_SOURCE_CHARS,
  MAX_TAG_CHARS,
  MAX_TAGS,
  MAX_TITLE_CHARS,
  normaliseTags,
  SNIPPET_ID,
} from '../domain/model.js';

export const idInput = z
  .string()
  .trim()
  .toLowerCase()
  .max(20)
  .refine((id) => SNIPPET_ID.test(id), { message: 'is not a snippet id like sn-7f3k2' })
  .describe('Snippet id, e.g. sn-7f3k2');

export const fieldInputs = {
  title: z.string().trim().min(1).max(MAX_TITLE_CHARS).describe('Short title of what the code does'),
  code: z.string().min(1).max(MAX_CODE_CHARS).describe('The code'),
  language: z
    .string()
    .trim()
    .min(1)
    .max(60)
    .describe('Language name, alias or extension (TypeScript, ts, py, sh); guessed when left out'),
  description: z.string().max(MAX_DESCRIPTION_CHARS).describe('When and how to use it'),
  tags: z.array(z.string().max(MAX_TAG_CHARS)).max(MAX_TAGS).describe('Tags, stored in lower case'),
  source: z.string().trim().max(MAX_SOURCE_CHARS).describe('URL or file path it came from'),
};

const uses = { worked: z.number().int(), failed: z.number().int() };

export const summaryOutput = z.object({
  id: z.string(),
  title: z.string(),
  language: z.string().nullable(),
  tags: z.array(z.string()),
  description: z.string(),
  head: z.string().describe('First lines of code'),
  lines: z.number().int(),
  version: z.number().int(),
  ...uses,
  updated_at: z.string(),
});

export const snippetOutput = z.object({
  id: z.string(),
  title: z.string(),
  code: z.string(),
  language: z.string().nullable(),
  description: z.string(),
  tags: z.array(z.string()),
  source: z.string().nullable(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  ...uses,
  last_used_at: z.string().nullable(),
});

/** A language as given (resolved through Linguist), else guessed from the source and code, else none. */
export async function languageOf(
  given: string | undefined,
  code: string,
  source: string | null | undefined,
): Promise<{ language: string | null; guess?: Guess }> {
  if (given !== undefined) return { language: await resolveLanguage(given) };
  const guess = await guessLanguage(code, source);
  return guess ? { language: guess.language, guess } : { language: null };
}

/** Tags as stored, refused in plain words. */
export const tagsOf = (tags: readonly string[] | undefined) => normaliseTags(tags ?? []);

export const guessOutput = z
  .string()
  .nullable()
  .describe('How the language was guessed (filename, extension, shebang, content); null when given or none');

export function refuseEmpty(set: Record<string, unknown>): void {
  if (Object.values(set).every((value) => value === undefined)) {
    throw new InvalidInput('Nothing to change: give at least one field to update', {
      hint: 'Pass title, code, language, description, tags or source',
    });
  }
}
