/**
 * Languages, from GitHub Linguist's data (the linguist-languages package): names, aliases, file extensions,
 * file names and interpreters. The data is loaded on first use, not at start. When no language is given, one
 * is guessed from the source's file name, a shebang, or, failing those, a few telling patterns in the code;
 * the answer says which.
 */
import { InvalidInput } from '@shipyard/core';

interface LanguageData {
  name: string;
  type: string;
  extensions?: readonly string[];
  filenames?: readonly string[];
  aliases?: readonly string[];
  interpreters?: readonly string[];
  codemirrorMimeType?: string;
}

interface Tables {
  byName: Map<string, LanguageData>;
  byExtension: Map<string, LanguageData>;
  byFilename: Map<string, LanguageData>;
  byInterpreter: Map<string, LanguageData>;
}

let tables: Promise<Tables> | undefined;

/** Linguist's tables, built once on first use. */
export function languageTables(): Promise<Tables> {
  tables ??= import('linguist-languages').then((module) => build(Object.values(module) as LanguageData[]));
  return tables;
}

const TYPE_ORDER = ['programming', 'markup', 'data', 'prose'];

/**
 * Of two languages claiming the same extension, the one that lists it first wins (`.ts` is TypeScript's
 * first extension), then a programming language over markup, data and prose, then one that editors
 * highlight (it has a CodeMirror MIME type: Rust over RenderScript for `.rs`), then the first in the data.
 */
function better(extension: string, a: LanguageData, b: LanguageData): LanguageData {
  const first = (l: LanguageData) => (l.extensions?.[0] === extension ? 0 : 1);
  const type = (l: LanguageData) => {
    const i = TYPE_ORDER.indexOf(l.type);
    return i < 0 ? TYPE_ORDER.length : i;
  };
  const edited = (l: LanguageData) => (l.codemirrorMimeType ? 0 : 1);
  const rank = (l: LanguageData) => [first(l), type(l), edited(l)];
  const [ra, rb] = [rank(a), rank(b)];
  const i = ra.findIndex((value, k) => value !== rb[k]);
  return i >= 0 && (rb[i] ?? 0) < (ra[i] ?? 0) ? b : a;
}

function build(languages: readonly LanguageData[]): Tables {
  const t: Tables = {
    byName: new Map(),
    byExtension: new Map(),
    byFilename: new Map(),
    byInterpreter: new Map(),
  };
  for (const language of languages) {
    if (typeof language?.name !== 'string') continue;
    t.byName.set(language.name.toLowerCase(), language);
  }
  for (const language of languages) {
    if (typeof language?.name !== 'string') continue;
    for (const alias of language.aliases ?? []) {
      if (!t.byName.has(alias.toLowerCase())) t.byName.set(alias.toLowerCase(), language);
    }
    for (const extension of language.extensions ?? []) {
      const key = extension.toLowerCase();
      const held = t.byExtension.get(key);
      t.byExtension.set(key, held ? better(key, held, language) : language);
    }
    for (const filename of language.filenames ?? []) t.byFilename.set(filename.toLowerCase(), language);
    for (const interpreter of language.interpreters ?? []) {
      if (!t.byInterpreter.has(interpreter)) t.byInterpreter.set(interpreter, language);
    }
  }
  return t;
}

/**
 * The Linguist name of a language given by name, alias or file extension (`ts`, `py`, `.rs`, `golang`),
 * in any case; InvalidInput when none matches.
 */
export async function resolveLanguage(given: string): Promise<string> {
  const t = await languageTables();
  const key = given.trim().toLowerCase();
  const found =
    t.byName.get(key) ?? t.byExtension.get(key.startsWith('.') ? key : `.${key}`) ?? t.byFilename.get(key);
  if (found) return found.name;
  const near = [...t.byName.values()]
    .filter((l, i, all) => all.indexOf(l) === i && l.name.toLowerCase().startsWith(key.slice(0, 2)))
    .slice(0, 5)
    .map((l) => l.name);
  throw new InvalidInput(`Language ${JSON.stringify(given)} is not one Linguist knows`, {
    hint: near.length
      ? `Use a language name, alias or extension, e.g. ${near.join(', ')}; or leave language out to have it guessed`
      : 'Use a language name, alias or extension (TypeScript, py, .rs); or leave language out to have it guessed',
  });
}

/** The canonical name of a language, or undefined when none matches (no error). */
export async function findLanguage(given: string): Promise<string | undefined> {
  const t = await languageTables();
  const key = given.trim().toLowerCase();
  return (t.byName.get(key) ?? t.byExtension.get(key.startsWith('.') ? key : `.${key}`))?.name;
}

export type GuessSource = 'filename' | 'extension' | 'shebang' | 'content';

export interface Guess {
  language: string;
  from: GuessSource;
}

/** A shebang's interpreter: `#!/usr/bin/env -S python3 -u` is python3, `#!/bin/bash` is bash. */
export function shebangInterpreter(code: string): string | undefined {
  const first = /^#!\s*(\S+)(.*)$/m.exec(code.split('\n', 1)[0] ?? '');
  if (!first) return undefined;
  let program = (first[1] ?? '').split('/').pop() ?? '';
  if (program === 'env') {
    program =
      (first[2] ?? '')
        .trim()
        .split(/\s+/)
        .find((word) => !word.startsWith('-') && !word.includes('=')) ?? '';
  }
  // python3.12 is python3.
  return program.replace(/(\d)\.\d+$/, '$1') || undefined;
}

/**
 * Patterns that tell a language in a few lines of code, with weights. Not a classifier: a guess that is
 * said to be one, for the common languages of snippets.
 */
const CONTENT_RULES: [language: string, weight: number, pattern: RegExp][] = [
  ['TypeScript', 3, /^\s*(export\s+)?(interface|type)\s+\w+(<[^>]*>)?\s*(=|\{)/m],
  ['TypeScript', 2, /\)\s*:\s*(string|number|boolean|void|Promise<)/],
  ['TypeScript', 2, /\b(const|let|private|public|readonly)\s+\w+\??\s*:\s*[A-Z\w[\]<>|]+\s*[=;,)]/],
  ['JavaScript', 2, /\b(require\(|module\.exports|console\.log\()/],
  ['JavaScript', 1, /^\s*(const|let|var)\s+\w+\s*=|=>\s*\{|\bfunction\s*\w*\s*\(/m],
  ['TypeScript', 1, /^\s*import\s.+\sfrom\s+['"]/m],
  ['JavaScript', 1, /^\s*import\s.+\sfrom\s+['"]/m],
  ['Python', 3, /^\s*def\s+\w+\s*\(.*\)\s*(->\s*[^:]+)?:\s*$/m],
  ['Python', 2, /^\s*(from\s+[\w.]+\s+import\s|import\s+\w+(\s+as\s+\w+)?\s*$)/m],
  ['Python', 2, /^\s*(elif\s|class\s+\w+(\(.*\))?:\s*$)|\bself\.|if __name__ ==/m],
  ['Go', 4, /^package\s+\w+\s*$/m],
  ['Go', 2, /^\s*func\s+(\(\w+\s+\*?\w+\)\s+)?\w+\(|\w+\s*:=\s*/m],
  ['Rust', 3, /^\s*(pub\s+)?fn\s+\w+(<[^>]*>)?\s*\(.*\)\s*(->\s*.+)?\{?\s*$/m],
  ['Rust', 3, /\blet\s+mut\s|^\s*impl\b|^\s*use\s+\w+::|\bprintln!\(|&mut\s/m],
  ['Shell', 2, /^\s*(if\s+\[\[?\s|fi\s*$|then\s*$|done\s*$|esac\s*$|export\s+[A-Z_]+=|set\s+-[euxo])/m],
  ['Shell', 1, /^\s*(echo|cd|mkdir|grep|sudo|apt-get|curl)\s/m],
  [
    'SQL',
    4,
    /^\s*(SELECT\s[\s\S]+\sFROM\s|INSERT\s+INTO\s|CREATE\s+(TABLE|INDEX|VIEW)\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|ALTER\s+TABLE\s)/im,
  ],
  ['Java', 3, /\bpublic\s+(static\s+)?(final\s+)?(class|void|interface)\b|System\.out\.print/],
  ['C++', 3, /#include\s*<(iostream|vector|string|memory|map)>|\bstd::/],
  ['C', 2, /#include\s*<\w+\.h>|\bint\s+main\s*\(|\bprintf\(/],
  ['Ruby', 2, /^\s*(def\s+\w+[?!]?(\(.*\))?\s*$|end\s*$|puts\s|require\s+['"])/m],
  ['PHP', 5, /<\?php/],
  ['HTML', 3, /<!DOCTYPE html|<html[\s>]|<\/div>/i],
  ['CSS', 2, /^\s*[.#]?[\w-]+(\s*[\w.#:-]+)*\s*\{\s*$|^\s*[\w-]+\s*:\s*[^;]+;\s*$/m],
];

/** The language the code itself looks like, when its patterns weigh 3 or more. */
export function guessFromContent(code: string): string | undefined {
  const sample = code.slice(0, 20_000);
  const trimmed = sample.trim();
  if (/^[[{]/.test(trimmed)) {
    try {
      JSON.parse(code);
      return 'JSON';
    } catch {
      // Not JSON: the rules decide.
    }
  }
  const scores = new Map<string, number>();
  for (const [language, weight, pattern] of CONTENT_RULES) {
    if (pattern.test(sample)) scores.set(language, (scores.get(language) ?? 0) + weight);
  }
  let best: [string, number] | undefined;
  for (const entry of scores) if (!best || entry[1] > best[1]) best = entry;
  return best && best[1] >= 3 ? best[0] : undefined;
}

/** The last part of a path or URL, without a query or fragment. */
const baseName = (source: string) => (source.split(/[?#]/, 1)[0] ?? '').split(/[\\/]/).pop()?.trim() ?? '';

/** A guess from the source's file name or extension, a shebang, or the code; undefined when none holds. */
export async function guessLanguage(code: string, source?: string | null): Promise<Guess | undefined> {
  const t = await languageTables();
  if (source) {
    const name = baseName(source).toLowerCase();
    const byName = t.byFilename.get(name);
    if (byName) return { language: byName.name, from: 'filename' };
    const dot = name.lastIndexOf('.');
    // Longest extension first: `.d.ts`, `.blade.php`.
    for (let i = name.indexOf('.'); i >= 0 && i <= dot; i = name.indexOf('.', i + 1)) {
      const byExtension = t.byExtension.get(name.slice(i));
      if (byExtension) return { language: byExtension.name, from: 'extension' };
    }
  }
  const interpreter = shebangInterpreter(code);
  if (interpreter) {
    const found = t.byInterpreter.get(interpreter) ?? t.byInterpreter.get(interpreter.replace(/\d+$/, ''));
    if (found) return { language: found.name, from: 'shebang' };
  }
  const byContent = guessFromContent(code);
  return byContent ? { language: byContent, from: 'content' } : undefined;
}

/**
 * The MIME type of a language's code: Linguist's (CodeMirror's) when it is a text/ type, else
 * `text/x-<name>` (TypeScript: text/x-typescript), and text/plain when the language is unknown.
 */
export async function languageMimeType(language: string | null): Promise<string> {
  if (!language) return 'text/plain';
  const t = await languageTables();
  const mime = t.byName.get(language.toLowerCase())?.codemirrorMimeType;
  if (mime?.startsWith('text/')) return mime;
  const slug = language
    .toLowerCase()
    .replace(/\+/g, 'p')
    .replace(/#/g, 'sharp')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `text/x-${slug || 'plain'}`;
}
