// @shipyard/snippets: a save, and a search at 100,000 snippets against the same question as a LIKE scan.
import { join } from 'node:path';
import { migrate, openDatabase } from '@shipyard/db';
import { contentHash, headOf, lineCount } from '../../../servers/snippets/src/domain/model.ts';
import { ftsColumns } from '../../../servers/snippets/src/store/sqlite/store.ts';
import { defineBench, type SeedContext, type ToolCall } from '../src/scenario.ts';

/** Words + a language filter, taken in turn: first page of 20 with its total. */
const SEARCHES: ToolCall[] = (
  [
    ['debounce input', 'TypeScript'],
    ['retry request', 'TypeScript'],
    ['parse config', 'Python'],
    ['cache user', 'Go'],
    ['validate token', 'Rust'],
    ['backup files', 'Shell'],
    ['orders customer', 'SQL'],
    ['stream events', 'Python'],
  ] as const
).map(([query, language]) => ({ name: 'search_snippets', arguments: { query, language } }));

let saved = 0;
/** A save of new code each time (a duplicate would be a read): the counter makes each body differ. */
const SAVE: ToolCall = {
  name: 'save_snippet',
  arguments: {
    title: 'Benchmark snippet',
    language: 'ts',
    tags: ['bench'],
    get code() {
      saved += 1;
      return `export const benchValue${saved} = ${saved};\n`;
    },
  },
};

export default defineBench({
  coldStartTarget: 0.6,
  scenarios: [
    { name: '`save_snippet`', calls: [SAVE], target: 3 },
    {
      name: '`search_snippets`, words + language, 100,000 snippets',
      seed: seedSnippets,
      calls: SEARCHES,
      reference: { label: '`LIKE` scan', open: openLikeScan },
      runs: 40,
      target: 1 / 15,
    },
  ],
});

const SNIPPETS = 100_000;
const SMOKE_SNIPPETS = 1_000;

/** mulberry32: a small seeded PRNG, so every run seeds the same snippets. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);
const VERBS = words(`parse load save fetch retry debounce throttle validate format render cache sync merge
  split build send read write stream encode decode hash sort filter map group count resolve connect close
  open backup restore compress upload download schedule notify log trace measure check convert normalize`);
const NOUNS = words(`config user token request response file files input event events order orders customer
  session query result results item items record records path url header headers payload message queue job
  batch cache key value date time list tree node graph buffer chunk line lines row rows table schema report`);
const TAGS = words(`http async io cli db testing parsing strings dates auth cache perf utils react node api
  errors logging config security files json csv regex concurrency`);
const LANGUAGES = ['TypeScript', 'Python', 'Go', 'Rust', 'Shell', 'SQL', 'JavaScript', 'Java'] as const;
type Language = (typeof LANGUAGES)[number];

const cap = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** Code in a language's own shape: functions of statements over generated names. */
function generator(random: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const camel = () => `${pick(VERBS)}${cap(pick(NOUNS))}`;
  const snake = () => `${pick(VERBS)}_${pick(NOUNS)}`;
  const lines: Record<Language, (fn: string) => string[]> = {
    TypeScript: (fn) => [
      `export async function ${fn}(${pick(NOUNS)}: string, options: { ${pick(NOUNS)}?: number } = {}): Promise<string[]> {`,
      `  const ${pick(NOUNS)} = await ${camel()}(${pick(NOUNS)});`,
      `  if (!${pick(NOUNS)}) throw new Error('${pick(VERBS)} ${pick(NOUNS)} failed');`,
      `  for (const ${pick(NOUNS)} of ${camel()}()) ${camel()}(${pick(NOUNS)}, options);`,
      `  return [${pick(NOUNS)}].map((x) => ${camel()}(x));`,
      '}',
    ],
    JavaScript: (fn) => [
      `function ${fn}(${pick(NOUNS)}, ${pick(NOUNS)}) {`,
      `  const ${pick(NOUNS)} = ${camel()}(${pick(NOUNS)});`,
      `  return ${pick(NOUNS)}.filter((x) => ${camel()}(x)).map(${camel()});`,
      '}',
    ],
    Python: (fn) => [
      `def ${fn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}(${pick(NOUNS)}, ${pick(NOUNS)}=None):`,
      `    """${cap(pick(VERBS))} the ${pick(NOUNS)} and ${pick(VERBS)} the ${pick(NOUNS)}."""`,
      `    ${pick(NOUNS)} = ${snake()}(${pick(NOUNS)})`,
      `    for ${pick(NOUNS)} in ${snake()}():`,
      `        ${snake()}(${pick(NOUNS)})`,
      `    return [${snake()}(x) for x in ${pick(NOUNS)}]`,
      '',
    ],
    Go: (fn) => [
      `func ${cap(fn)}(${pick(NOUNS)} string) ([]string, error) {`,
      `\t${pick(NOUNS)}, err := ${camel()}(${pick(NOUNS)})`,
      '\tif err != nil {',
      `\t\treturn nil, fmt.Errorf("${pick(VERBS)} ${pick(NOUNS)}: %w", err)`,
      '\t}',
      `\treturn ${camel()}(${pick(NOUNS)}), nil`,
      '}',
    ],
    Rust: (fn) => [
      `pub fn ${fn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}(${pick(NOUNS)}: &str) -> Result<Vec<String>, Error> {`,
      `    let mut ${pick(NOUNS)} = ${snake()}(${pick(NOUNS)})?;`,
      `    for ${pick(NOUNS)} in ${snake()}().iter() {`,
      `        ${pick(NOUNS)}.push(${snake()}(${pick(NOUNS)}));`,
      '    }',
      `    Ok(${pick(NOUNS)})`,
      '}',
    ],
    Shell: (fn) => [
      `${fn.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}() {`,
      `  local ${pick(NOUNS)}="$1"`,
      `  if [ -z "$${pick(NOUNS)}" ]; then echo "${pick(VERBS)}: missing ${pick(NOUNS)}" >&2; return 1; fi`,
      `  ${pick(VERBS)} "$${pick(NOUNS)}" | grep -v "${pick(NOUNS)}" > "/tmp/${pick(NOUNS)}.txt"`,
      '}',
    ],
    SQL: () => [
      `SELECT ${pick(NOUNS)}.id, ${pick(NOUNS)}.${pick(NOUNS)}, count(*) AS ${pick(NOUNS)}_count`,
      `FROM ${pick(NOUNS)} JOIN ${pick(NOUNS)} ON ${pick(NOUNS)}.id = ${pick(NOUNS)}.${pick(NOUNS)}_id`,
      `WHERE ${pick(NOUNS)}.${pick(NOUNS)} > now() - interval '${1 + Math.floor(random() * 30)} days'`,
      `GROUP BY ${pick(NOUNS)}.id ORDER BY ${pick(NOUNS)}_count DESC;`,
      '',
    ],
    Java: (fn) => [
      `public static List<String> ${fn}(String ${pick(NOUNS)}) throws IOException {`,
      `    List<String> ${pick(NOUNS)} = ${camel()}(${pick(NOUNS)});`,
      `    for (String ${pick(NOUNS)} : ${camel()}()) { ${camel()}(${pick(NOUNS)}); }`,
      `    return ${pick(NOUNS)};`,
      '}',
    ],
  };
  return (language: Language) => {
    // 20-400 lines, most of them short, as snippets are.
    const target = 20 + Math.floor(380 * random() ** 4);
    const out: string[] = [];
    while (out.length < target) out.push(...lines[language](camel()));
    return {
      code: out.slice(0, target).join('\n'),
      title: `${cap(pick(VERBS))} ${pick(NOUNS)} ${pick(NOUNS)}`,
    };
  };
}

/**
 * Snippets in eight languages written straight into the server's tables after its migrations, with their
 * full-text index rows built as the server builds them (store.ts's ftsColumns).
 */
function seedSnippets({ dataDir, root, smoke }: SeedContext): void {
  const count = smoke ? SMOKE_SNIPPETS : SNIPPETS;
  const random = prng(7);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const generate = generator(random);
  const database = openDatabase({ server: 'snippets', dataDir });
  try {
    migrate(database, join(root, 'servers/snippets/drizzle'));
    const { sqlite } = database;
    const insert = sqlite.prepare(
      `INSERT INTO snippets (n, id, title, language, description, tags, source, hash, version, worked, failed,
         created_at, updated_at, head, lines, code) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, 1, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertTag = sqlite.prepare('INSERT INTO snippet_tags (tag, n) VALUES (?, ?)');
    const insertFts = sqlite.prepare(
      'INSERT INTO snippets_fts (rowid, title, tags, description, code, words) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const start = Date.parse('2024-01-01T00:00:00Z');
    const span = 2 * 365 * 24 * 3600 * 1000;
    const BATCH = 5_000;
    for (let from = 1; from <= count; from += BATCH) {
      sqlite.transaction(() => {
        for (let n = from; n < Math.min(from + BATCH, count + 1); n++) {
          const language = pick(LANGUAGES);
          const { code: body, title } = generate(language);
          // The snippet's number in a comment keeps every body distinct, as the content hash requires.
          const code = `${language === 'Python' || language === 'Shell' ? '#' : language === 'SQL' ? '--' : '//'} ${n}\n${body}`;
          const tags = [...new Set([pick(TAGS), pick(TAGS)].slice(0, 1 + Math.floor(random() * 2)))];
          const description = `${title} with ${pick(NOUNS)} and ${pick(NOUNS)}, for ${pick(TAGS)} code.`;
          const at = new Date(start + Math.floor((span * n) / count)).toISOString();
          const id = `sn-${n.toString(36).padStart(5, '0')}`;
          const worked = random() < 0.2 ? Math.floor(random() * 5) : 0;
          const failed = random() < 0.1 ? Math.floor(random() * 3) : 0;
          insert.run(
            n,
            id,
            title,
            language,
            description,
            JSON.stringify(tags),
            contentHash(code),
            worked,
            failed,
            at,
            at,
            headOf(code),
            lineCount(code),
            code,
          );
          for (const tag of tags) insertTag.run(tag, n);
          insertFts.run(n, ...ftsColumns({ title, code, language, description, tags, source: null }));
        }
      })();
    }
    sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    database.close();
  }
}

/**
 * The search without an index: every word as LIKE '%word%' over title, tags, description and code, the
 * same language filter, newest first, a page of 20 and the total, on its own connection to the server's file.
 */
function openLikeScan({ dataDir }: SeedContext) {
  const database = openDatabase({ server: 'snippets', dataDir, readonly: true });
  const { sqlite } = database;
  return {
    run(call: ToolCall) {
      const input = call.arguments as { query: string; language: string };
      const terms = input.query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
      const where = terms.map(
        () =>
          "(title LIKE ? ESCAPE '\\' OR tags LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\' OR code LIKE ? ESCAPE '\\')",
      );
      const params: string[] = terms.flatMap((w) => Array(4).fill(`%${w}%`) as string[]);
      where.push('language = ?');
      params.push(input.language);
      const filter = `WHERE ${where.join(' AND ')}`;
      const rows = sqlite
        .prepare(
          `SELECT id, title, language, tags, description, head, lines, version, worked, failed, updated_at
           FROM snippets ${filter} ORDER BY updated_at DESC, n DESC LIMIT 20`,
        )
        .all(...params);
      const total =
        rows.length < 20
          ? rows.length
          : sqlite
              .prepare(`SELECT count(*) FROM snippets ${filter}`)
              .pluck()
              .get(...params);
      return { rows, total };
    },
    close: () => database.close(),
  };
}
